/**
 * What the polite live region says of the tier 2 schedulers: each arming, cancel or refusal once,
 * never a tick of a countdown. Values only: the UI words them.
 */
import type { RegenerateRefusal } from './machine'
import type { RetryView } from './view'

/** Something the polite live region should say once: which status, for which attempt. */
export type RetryAnnouncement =
  | { kind: 'armed'; attempt: number; deadline: number; remainingMs: number }
  | { kind: 'paused'; attempt: number; deadline: number }
  /** Held for the operator: Retry now would run these `write` tools again. */
  | { kind: 'held'; attempt: number; tools: readonly string[] }
  | { kind: 'cancelled' }
  | { kind: 'refused'; refusal: RegenerateRefusal | null }

/**
 * What an arming, a cancel or a refusal should announce, with a key that is the same for every
 * tick of one countdown (so it is spoken once, not per second) and new for the next attempt.
 */
export function announcementOf(view: RetryView): { key: string; announcement: RetryAnnouncement } | undefined {
  const key = `${view.status}:${view.attempt}`
  switch (view.status) {
    case 'armed':
      return view.deadline === null ? undefined : { key, announcement: { kind: 'armed', attempt: view.attempt, deadline: view.deadline, remainingMs: view.remainingMs } }
    case 'paused':
      return view.deadline === null ? undefined : { key, announcement: { kind: 'paused', attempt: view.attempt, deadline: view.deadline } }
    case 'held':
      return { key, announcement: { kind: 'held', attempt: view.attempt, tools: view.rerun ?? [] } }
    case 'cancelled':
      return { key, announcement: { kind: 'cancelled' } }
    case 'refused':
      return { key, announcement: { kind: 'refused', refusal: view.refusal } }
    default:
      return undefined
  }
}

/** The live region's memory: what each anchor last announced, and whose words it holds now. */
export type AnnouncerState = {
  spoken: ReadonlyMap<string, string>
  speaker: string | null
  current: RetryAnnouncement | null
}

export const SILENT: AnnouncerState = { spoken: new Map(), speaker: null, current: null }

/**
 * The live region after the schedulers changed. Each arming, cancel or refusal is announced once
 * (keyed by status and attempt, never per tick). A live region is spoken when its content
 * changes, so a later failure worded exactly like the last one would go unheard if the old words
 * stayed: once the anchor that spoke moves on (dispatching, watching, settled, gone), the region
 * is emptied and its key forgotten.
 */
export function nextAnnouncement(state: AnnouncerState, views: ReadonlyMap<string, RetryView>): AnnouncerState {
  const spoken = new Map(state.spoken)
  let { speaker, current } = state
  for (const anchorId of state.spoken.keys()) {
    if (views.has(anchorId)) continue
    spoken.delete(anchorId)
    if (speaker === anchorId) [speaker, current] = [null, null]
  }
  for (const [anchorId, view] of views) {
    const next = announcementOf(view)
    if (!next) {
      spoken.delete(anchorId)
      if (speaker === anchorId) [speaker, current] = [null, null]
      continue
    }
    if (spoken.get(anchorId) === next.key) continue
    spoken.set(anchorId, next.key)
    speaker = anchorId
    current = next.announcement
  }
  return { spoken, speaker, current }
}
