import { z } from 'zod/mini'

/**
 * A stored list read entry by entry: one unreadable entry (an older shape, a hand edit) is left
 * out instead of costing the others.
 */
export function readableList<S extends z.ZodMiniType>(entry: S) {
  return z.pipe(
    z.array(z.unknown()),
    z.transform((items: unknown[]) =>
      items.flatMap((item): z.infer<S>[] => {
        const parsed = entry.safeParse(item)
        return parsed.success ? [parsed.data as z.infer<S>] : []
      }),
    ),
  )
}
