/**
 * A reply's agent steps (parts) as the stream builds them, per daemon-wire.md "Agent steps": a
 * `delta` appends to the last part when it is text, else starts a text part, `reasoning` the same
 * for reasoning; a tool part starts at `tool_call`, grows with `tool_input` and changes status with
 * `tool_approval`, `tool_running` and `tool_result`. No clock, storage or I/O: the caller passes the
 * time of each frame, and this module keeps nothing but the parts.
 *
 * This is the streaming hot path (tens of thousands of deltas, megabytes of tool input), so a frame
 * only records what it adds: text and input pieces wait in a list until `flush`, which joins them
 * once and copies only the parts they touched. A part no frame touched keeps its object across
 * flushes, so a view memoised on a part skips it.
 */
import { z } from 'zod/mini'
import { TOOL_STATUSES, type Part, type ReasoningPart, type StreamFrame, type TextPart, type ToolPart, type ToolStatus } from '../wire/types'
import { isToolEnded } from '../wire/status'

/** A tool part as the client shows it: the wire's, with the reason the daemon gave when it asked for approval. */
export type LiveToolPart = ToolPart & { reason?: string }
/** One step of a reply as the client shows it. */
export type LivePart = TextPart | ReasoningPart | LiveToolPart

/** The frames that build parts. */
export type StepFrame = Extract<StreamFrame, { type: 'delta' | 'reasoning' | 'tool_call' | 'tool_input' | 'tool_approval' | 'tool_running' | 'tool_result' }>


const count = z.int().check(z.minimum(0))
/**
 * What a reattach needs to know of one part to cut history's copy back to it: its kind and length,
 * and for a tool what the stream alone knew (its status then, the approval reason, the times on
 * the browser's clock). Never the text: history has it.
 */
export const partMarkSchema = z.union([
  z.object({ type: z.enum(['text', 'reasoning']), length: count }),
  z.object({
    type: z.literal('tool'),
    id: z.string(),
    length: count,
    status: z.enum(TOOL_STATUSES),
    reason: z.optional(z.string()),
    started_at: z.number(),
    ended_at: z.optional(z.number()),
  }),
])
export type PartMark = z.infer<typeof partMarkSchema>

type ToolPatch = Partial<Pick<LiveToolPart, 'status' | 'reason' | 'output' | 'output_bytes' | 'output_truncated' | 'error' | 'ended_at'>>
/** What frames added to one part since the last flush. */
type Draft = { pieces: string[]; length: number; patch: ToolPatch | undefined }
/** A tool the stream named, where its part is and the status it has reached. */
type ToolSlot = { index: number; status: ToolStatus }

/** Parts under construction: frames go in (`apply`), immutable lists come out (`flush`). */
export type PartsBuilder = {
  /** Applies one step frame at `now` (epoch ms). False when it made no sense (an unknown or ended tool) and was skipped. */
  apply(frame: StepFrame, now: number): boolean
  /** The parts with every frame applied; the same array as last time when nothing changed. */
  flush(): readonly LivePart[]
  /** The shape of the parts with every frame applied (pending pieces included), for a reattach point. */
  marks(): PartMark[]
}

/** Starts building from `base` (the parts a reattach resumes from); `base` itself is never written. */
export function createPartsBuilder(base: readonly LivePart[] = []): PartsBuilder {
  let shown: readonly LivePart[] = base
  /** Parts started since the last flush, after `shown`. */
  let added: LivePart[] = []
  const drafts = new Map<number, Draft>()
  const tools = new Map<string, ToolSlot>()
  base.forEach((part, index) => {
    if (part.type === 'tool') tools.set(part.tool_call_id, { index, status: part.status })
  })
  let lastType: Part['type'] | undefined = base.at(-1)?.type

  const size = () => shown.length + added.length
  const partAt = (index: number) => (index < shown.length ? shown[index] : added[index - shown.length]) as LivePart

  function draftAt(index: number): Draft {
    let draft = drafts.get(index)
    if (!draft) drafts.set(index, (draft = { pieces: [], length: 0, patch: undefined }))
    return draft
  }

  function append(index: number, piece: string) {
    const draft = draftAt(index)
    draft.pieces.push(piece)
    draft.length += piece.length
  }

  function text(type: 'text' | 'reasoning', piece: string) {
    if (lastType !== type) {
      added.push({ type, text: '' })
      lastType = type
    }
    append(size() - 1, piece)
  }

  /** The tool a frame names, while it has not ended: a later event for it makes no sense. */
  function open(id: string): ToolSlot | undefined {
    const tool = tools.get(id)
    return tool && !isToolEnded(tool.status) ? tool : undefined
  }

  function patch(tool: ToolSlot, change: ToolPatch) {
    const draft = draftAt(tool.index)
    draft.patch = draft.patch ? Object.assign(draft.patch, change) : change
    if (change.status) tool.status = change.status
  }

  return {
    apply(frame, now) {
      switch (frame.type) {
        case 'delta':
          text('text', frame.text)
          return true
        case 'reasoning':
          text('reasoning', frame.text)
          return true
        case 'tool_call': {
          if (tools.has(frame.tool_call_id)) return false
          const index = size()
          added.push({ type: 'tool', tool_call_id: frame.tool_call_id, name: frame.name, effect: frame.effect, input: '', status: 'input', started_at: now })
          tools.set(frame.tool_call_id, { index, status: 'input' })
          lastType = 'tool'
          return true
        }
        case 'tool_input': {
          const tool = open(frame.tool_call_id)
          if (!tool) return false
          append(tool.index, frame.delta)
          return true
        }
        case 'tool_approval': {
          const tool = open(frame.tool_call_id)
          if (!tool) return false
          patch(tool, frame.reason === undefined ? { status: 'awaiting_approval' } : { status: 'awaiting_approval', reason: frame.reason })
          return true
        }
        case 'tool_running': {
          const tool = open(frame.tool_call_id)
          if (!tool) return false
          patch(tool, { status: 'running' })
          return true
        }
        case 'tool_result': {
          const tool = open(frame.tool_call_id)
          if (!tool) return false
          // Only what the event carries: an absent field stays absent, as history persists it.
          const change: ToolPatch = { status: frame.status, ended_at: now }
          if (frame.output !== undefined) change.output = frame.output
          if (frame.output_bytes !== undefined) change.output_bytes = frame.output_bytes
          if (frame.output_truncated !== undefined) change.output_truncated = frame.output_truncated
          if (frame.error !== undefined) change.error = frame.error
          patch(tool, change)
          return true
        }
      }
    },

    flush() {
      if (drafts.size === 0 && added.length === 0) return shown
      const next = added.length > 0 ? shown.concat(added) : shown.slice()
      for (const [index, draft] of drafts) next[index] = realize(next[index] as LivePart, draft)
      shown = next
      added = []
      drafts.clear()
      return next
    },

    marks() {
      const marks: PartMark[] = []
      for (let index = 0, n = size(); index < n; index++) {
        const part = partAt(index)
        const draft = drafts.get(index)
        const extra = draft?.length ?? 0
        if (part.type !== 'tool') {
          marks.push({ type: part.type, length: part.text.length + extra })
          continue
        }
        const now = draft?.patch ? { ...part, ...draft.patch } : part
        const mark: PartMark = { type: 'tool', id: part.tool_call_id, length: part.input.length + extra, status: now.status, started_at: now.started_at }
        if (now.reason !== undefined) mark.reason = now.reason
        if (now.ended_at !== undefined) mark.ended_at = now.ended_at
        marks.push(mark)
      }
      return marks
    },
  }
}

/** A new part object: `part` with its draft's pieces joined on and its changes made. */
function realize(part: LivePart, draft: Draft): LivePart {
  const { pieces } = draft
  const joined = pieces.length === 0 ? '' : pieces.length === 1 ? (pieces[0] as string) : pieces.join('')
  if (part.type !== 'tool') return { type: part.type, text: part.text + joined }
  return { ...part, ...draft.patch, input: part.input + joined }
}

/** The answer: the text parts joined, as the wire's `content` is. */
export function answerText(parts: readonly Part[]): string {
  let text = ''
  for (const part of parts) if (part.type === 'text') text += part.text
  return text
}

/**
 * History's parts cut back to the point `marks` describe, so the frames after that point apply on
 * top exactly as they did on the stream; undefined when history has not reached that point (a part
 * missing or shorter, another tool in its place, a tool the stream saw end that history has not).
 * What history alone knows (texts, tool inputs and outputs) is taken from it; what the stream alone
 * knew at that point (a tool's status then, its approval reason, its times on the browser's clock)
 * from the marks.
 */
export function cutToMarks(history: readonly Part[], marks: readonly PartMark[]): LivePart[] | undefined {
  if (history.length < marks.length) return undefined
  const parts: LivePart[] = []
  for (let index = 0; index < marks.length; index++) {
    const mark = marks[index] as PartMark
    const part = history[index] as Part
    if (mark.type !== 'tool') {
      if (part.type !== mark.type || part.text.length < mark.length) return undefined
      parts.push(part.text.length === mark.length ? part : { type: part.type, text: part.text.slice(0, mark.length) })
      continue
    }
    if (part.type !== 'tool' || part.tool_call_id !== mark.id || part.input.length < mark.length) return undefined
    const ended = isToolEnded(mark.status)
    if (ended && part.status !== mark.status) return undefined
    const tool: LiveToolPart = {
      type: 'tool',
      tool_call_id: part.tool_call_id,
      name: part.name,
      effect: part.effect,
      input: part.input.length === mark.length ? part.input : part.input.slice(0, mark.length),
      status: mark.status,
      started_at: mark.started_at,
    }
    if (mark.reason !== undefined) tool.reason = mark.reason
    if (ended) {
      if (part.output !== undefined) tool.output = part.output
      if (part.output_bytes !== undefined) tool.output_bytes = part.output_bytes
      if (part.output_truncated !== undefined) tool.output_truncated = part.output_truncated
      if (part.error !== undefined) tool.error = part.error
      if (mark.ended_at !== undefined) tool.ended_at = mark.ended_at
    }
    parts.push(tool)
  }
  return parts
}

/**
 * History's parts for a reply: its `parts`, or, from a daemon that keeps none, its `content` as one
 * text part (the wire's `content` is always the text parts joined).
 */
export function historyParts(content: string, parts: readonly Part[] | undefined): readonly Part[] {
  if (parts) return parts
  return content === '' ? [] : [{ type: 'text', text: content }]
}
