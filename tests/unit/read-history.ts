import { readMessageList } from '../../src/wire/types'

/** A history body read in one pass, as the client reads it (no pauses needed here); throws what it cannot read. */
export async function readList(body: unknown) {
  const read = await readMessageList(body, async () => {})
  if (!read.ok) throw new Error(read.issue)
  return read
}
