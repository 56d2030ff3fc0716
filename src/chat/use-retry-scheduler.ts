/**
 * Binds the tier 2 retry machine (src/retry) to a session: one actor per anchor, fed from the
 * persisted history (never from a frame the stream has not yet confirmed in history), a clock
 * that re-reads on wake, and a polite announcement of the changes an operator should hear.
 */
import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { createActor, fromPromise, type ActorRefFrom } from 'xstate'
import { describeFailure, failureFromError } from '../i18n/describe-failure'
import { countdownSeconds, formatClockTime } from '../i18n/format'
import {
  fromRegenerate,
  retryMachine,
  retryView,
  type CancelAcceptedInput,
  type CancelAcceptedOutput,
  type RetrySnapshot,
  type RetryView,
} from '../retry/machine'
import type { Message } from '../wire/types'
import { isStreamed } from './live-runs'
import { chatKeys } from './queries'
import type { RetryStatusView } from './retry-status'
import { useChatRuntime, type ChatRuntime } from './runtime'

type RetryActor = ActorRefFrom<typeof retryMachine>

export type RetryBinding = {
  /** The scheduler's view for the reply shown for `anchorId`, when the scheduler has something to show. */
  viewFor: (anchorId: string, reply: Message) => { anchorId: string; view: RetryStatusView; cancellable: boolean } | undefined
  retryNow: (anchorId: string) => void
  cancel: (anchorId: string) => void
  /** Forget the scheduler of an anchor the operator regenerates by hand. */
  dismiss: (anchorId: string) => void
  /** The clock reading the countdowns are derived from. */
  now: number
  announcement: string
}

const TERMINAL = new Set(['complete', 'failed', 'cancelled'])

const CANCELLED_KEY = 'rebound.retry-cancelled.v1'
/** Enough to cover every failure an operator cancelled in this tab; the oldest go first. */
const CANCELLED_LIMIT = 200

function cancelledIds(): string[] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(CANCELLED_KEY) ?? '[]')
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : []
  } catch {
    return []
  }
}

/** Failed replies whose automatic retry the operator cancelled (this tab, across reloads). */
function wasCancelled(messageId: string): boolean {
  return cancelledIds().includes(messageId)
}

function rememberCancelled(messageId: string): void {
  const ids = cancelledIds()
  if (ids.includes(messageId)) return
  try {
    sessionStorage.setItem(CANCELLED_KEY, JSON.stringify([...ids, messageId].slice(-CANCELLED_LIMIT)))
  } catch {
    // Storage blocked: the cancel still holds for as long as this page lives.
  }
}
const SECOND_MS = 1000
const MINUTE_MS = 60_000

/** History's word on a reply: a failure seen only on the stream waits for its persisted classification. */
function settledInHistory(message: Message): boolean {
  if (!message.status || !TERMINAL.has(message.status)) return false
  return !(message.status === 'failed' && isStreamed(message))
}

/**
 * The machine with its network actors. `refreshHistory` re-reads the session's messages: after a
 * regenerate is accepted, and after a cancel stopped a run this tab may not be following (a
 * regenerate accepted after its request was aborted), so the transcript shows what the daemon holds.
 */
function machineFor(runtime: ChatRuntime, refreshHistory: () => void) {
  const { client } = runtime
  return retryMachine.provide({
    actors: {
      regenerate: fromRegenerate(async (input, signal) => {
        const receipt = await client.regenerate(input.sessionId, input.anchorId, signal)
        refreshHistory()
        return receipt
      }),
      cancelAccepted: fromPromise<CancelAcceptedOutput, CancelAcceptedInput>(async ({ input }) => {
        if (input.runId) {
          await client.cancelRun(input.sessionId, input.runId)
          return { runId: input.runId }
        }
        // The request was aborted in flight: if the daemon accepted it anyway, its reply is the
        // active one for this anchor created after the request went out. Cancel that run.
        const messages = await client.listMessages(input.sessionId)
        const stray = messages.find(
          (m) =>
            m.role === 'agent' &&
            m.reply_to === input.anchorId &&
            !m.superseded &&
            m.run_id &&
            m.created_at >= input.dispatchedAt - 1000 &&
            (m.status === 'queued' || m.status === 'streaming'),
        )
        if (!stray?.run_id) return {}
        await client.cancelRun(input.sessionId, stray.run_id)
        // The client never followed this run: without a fresh read the transcript would go on
        // showing the reply it superseded as the current one.
        refreshHistory()
        return { runId: stray.run_id }
      }),
    },
  })
}

export function useRetryScheduler(sessionId: string, messages: readonly Message[] | undefined): RetryBinding {
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const { t, i18n } = useTranslation()
  const actors = useRef(new Map<string, RetryActor>())
  // What each anchor's machine shows, mirrored into state so rendering never reads the actors.
  const [snapshots, setSnapshots] = useState<ReadonlyMap<string, RetrySnapshot>>(new Map())
  const mirror = useCallback((anchorId: string, snapshot: RetrySnapshot | undefined) => {
    setSnapshots((prev) => {
      const next = new Map(prev)
      if (snapshot) next.set(anchorId, snapshot)
      else next.delete(anchorId)
      return next
    })
  }, [])
  const [now, setNow] = useState(() => runtime.clock.now())
  const [announcement, setAnnouncement] = useState('')
  const lastAnnounced = useRef(new Map<string, string>())
  // The anchor whose words the live region holds now.
  const speaker = useRef<string | null>(null)
  const tRef = useRef({ t, lng: i18n.language })
  useEffect(() => {
    tRef.current = { t, lng: i18n.language }
  }, [t, i18n.language])

  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: chatKeys.messages(sessionId) })
  }, [queryClient, sessionId])
  const machine = useMemo(() => machineFor(runtime, refresh), [runtime, refresh])

  // A live region is spoken when its content changes, so a later failure worded exactly like the
  // last one ("Reply failed. Retry 1 in 2 seconds.") would go unheard if the old words stayed.
  // Once the anchor that spoke has moved on, the region is emptied, and its key forgotten.
  const forgetAnnouncement = useCallback((anchorId: string) => {
    lastAnnounced.current.delete(anchorId)
    if (speaker.current !== anchorId) return
    speaker.current = null
    setAnnouncement('')
  }, [])

  const announce = useCallback(
    (anchorId: string, view: RetryView) => {
      const { t: tr, lng } = tRef.current
      const clockNow = runtime.clock.now()
      let text = ''
      if (view.status === 'armed') text = tr('retry.announceArmed', { attempt: view.attempt, seconds: countdownSeconds(view.remainingMs) })
      else if (view.status === 'paused' && view.deadline !== null)
        text = tr('retry.announcePaused', { attempt: view.attempt, time: formatClockTime(view.deadline, clockNow, lng) })
      else if (view.status === 'cancelled') text = tr('retry.announceCancelled')
      else if (view.status === 'refused') text = tr('retry.refused', { reason: describeFailure(tr, failureFromError(view.refusal)).text })
      if (!text) {
        // Moving on (dispatching, watching, settled): the next arming is news again.
        forgetAnnouncement(anchorId)
        return
      }
      // Announce each arming once (keyed by status and attempt), never each tick.
      const key = `${view.status}:${view.attempt}`
      if (lastAnnounced.current.get(anchorId) === key) return
      lastAnnounced.current.set(anchorId, key)
      speaker.current = anchorId
      setAnnouncement(text)
    },
    [forgetAnnouncement, runtime],
  )

  const actorFor = useCallback(
    (anchorId: string): RetryActor => {
      let actor = actors.current.get(anchorId)
      if (actor) return actor
      actor = createActor(machine, { input: { anchorId, sessionId, clock: runtime.clock } })
      const created = actor
      created.subscribe({
        next: (snapshot) => {
          // The operator's cancel outlives this actor: leaving the session or reloading must not
          // bring the countdown for the same failure back.
          if (snapshot.matches('cancelled') && snapshot.context.failedMessageId) rememberCancelled(snapshot.context.failedMessageId)
          mirror(anchorId, snapshot)
          announce(anchorId, retryView(snapshot, runtime.clock.now()))
        },
        // A failing actor must not take the page down: it is forgotten and shows nothing.
        error: () => mirror(anchorId, undefined),
      })
      actors.current.set(anchorId, created)
      created.start()
      return created
    },
    [announce, machine, mirror, runtime, sessionId],
  )

  // Feed the machines from history.
  useEffect(() => {
    if (!messages) return
    const main = messages.filter((m) => !m.superseded)
    const tail = main.at(-1)
    // Only the reply at the end of the conversation may arm: regenerating an earlier one would
    // supersede what the operator wrote after it.
    if (tail && tail.role === 'agent' && tail.reply_to && tail.status === 'failed' && settledInHistory(tail) && !wasCancelled(tail.id)) {
      actorFor(tail.reply_to).send({ type: 'failure.observed', message: tail })
    }
    for (const [anchorId, actor] of actors.current) {
      const snapshot = actor.getSnapshot()
      const runId = snapshot.context.runId
      if (snapshot.matches('watching') && runId) {
        const reply = messages.find((m) => m.run_id === runId)
        if (reply && settledInHistory(reply)) actor.send({ type: 'run.settled', runId, message: reply })
      }
      // The operator wrote after this reply: its countdown must not regenerate over their message.
      const stillTail = tail?.role === 'agent' && tail.reply_to === anchorId
      if (!stillTail && (snapshot.matches('armed') || snapshot.matches('paused'))) {
        actor.stop()
        actors.current.delete(anchorId)
        mirror(anchorId, undefined)
        forgetAnnouncement(anchorId)
      }
    }
  }, [messages, actorFor, mirror, forgetAnnouncement])

  // The countdown ticks while something waits; wake-ups re-read the clock at once. The key says
  // what waits and until when, so the ticking restarts (and re-aligns) whenever that changes.
  const waiting = [...snapshots]
    .filter(([, s]) => s.matches('armed') || s.matches('paused'))
    .map(([anchorId, s]) => `${anchorId}:${String(s.value)}:${s.context.deadline}`)
    .join(' ')
  useEffect(() => {
    if (!waiting) return
    const check = () => {
      setNow(runtime.clock.now())
      for (const actor of actors.current.values()) actor.send({ type: 'clock.check' })
    }
    // The countdown shows whole seconds left, rounded up, so its digit changes when the time left
    // crosses a whole second: tick then, at the nearest such moment of any armed deadline (not at
    // the wall clock's whole seconds, which would show each digit up to a second too long). A
    // paused scheduler shows a clock time, not a countdown: re-reading once a minute is enough.
    const nextTickIn = () => {
      const clockNow = runtime.clock.now()
      let delay = MINUTE_MS - (clockNow % MINUTE_MS) || MINUTE_MS
      for (const actor of actors.current.values()) {
        const snapshot = actor.getSnapshot()
        const { deadline } = snapshot.context
        if (!snapshot.matches('armed') || deadline === null) continue
        const left = deadline - clockNow
        delay = Math.min(delay, left > 0 ? left % SECOND_MS || SECOND_MS : SECOND_MS)
      }
      return delay
    }
    check()
    let timer: ReturnType<typeof setTimeout>
    const tick = () => {
      check()
      timer = setTimeout(tick, nextTickIn())
    }
    timer = setTimeout(tick, nextTickIn())
    const onVisible = () => {
      if (document.visibilityState === 'visible') check()
    }
    document.addEventListener('visibilitychange', onVisible)
    window.addEventListener('focus', check)
    window.addEventListener('online', check)
    return () => {
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', onVisible)
      window.removeEventListener('focus', check)
      window.removeEventListener('online', check)
    }
  }, [waiting, runtime])

  // Leaving the session stops its schedulers (a countdown is interactive-only, by design).
  useEffect(() => {
    const map = actors.current
    return () => {
      for (const actor of map.values()) actor.stop()
      map.clear()
    }
  }, [])

  const viewFor = useCallback<RetryBinding['viewFor']>(
    (anchorId, reply) => {
      const snapshot = snapshots.get(anchorId)
      if (!snapshot) return undefined
      const view = retryView(snapshot, now)
      if (view.status === 'idle') return undefined
      const { runId, failedMessageId } = snapshot.context
      // Waiting states belong to the failed reply; dispatching and watching to the reply in flight.
      const mine =
        view.status === 'armed' || view.status === 'paused'
          ? reply.id === failedMessageId
          : view.status === 'watching'
            ? reply.run_id === runId
            : true
      if (!mine) return undefined
      const cancellable = view.status === 'armed' || view.status === 'paused' || view.status === 'dispatching' || view.status === 'watching'
      return {
        anchorId,
        cancellable,
        view: {
          status: view.status,
          attempt: view.attempt,
          deadline: view.deadline ?? 0,
          remainingMs: view.remainingMs,
          refusal: view.refusal ?? undefined,
        },
      }
    },
    [now, snapshots],
  )

  return {
    viewFor,
    retryNow: (anchorId) => actors.current.get(anchorId)?.send({ type: 'retry.now' }),
    cancel: (anchorId) => actors.current.get(anchorId)?.send({ type: 'retry.cancel' }),
    dismiss: (anchorId) => {
      const actor = actors.current.get(anchorId)
      if (!actor) return
      actor.stop()
      actors.current.delete(anchorId)
      mirror(anchorId, undefined)
      forgetAnnouncement(anchorId)
    },
    now,
    announcement,
  }
}
