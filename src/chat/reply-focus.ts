/**
 * Where focus goes after an action on a reply, so it never falls to <body>: Stop and Cancel retry
 * end on that reply's Regenerate, Retry now on the retry box's status line, a regenerate (and
 * Replace) on the reply that replaces it. The reply it should land on may not exist yet (a
 * regenerate's reply mounts with a new message id once history is read), so each wish is kept by
 * anchor (the operator message, stable across regenerates) until a reply can take it; meanwhile
 * the reply's article holds focus as a stepping stone.
 *
 * Focus is only ever moved from where the action left it: nowhere (<body>, a control that went
 * away or was disabled) or inside that reply. An operator who has moved on keeps their focus.
 */
import { useLayoutEffect, useMemo, useRef, type RefObject } from 'react'
import { focusIfAble } from './dialogs/dialog-focus'
import { useChatRuntime } from './runtime'
import { type ChatRuntime } from '../thread/runtime'

/**
 * A reply's article takes focus only to keep it from falling to <body> until a control can take
 * it: the view stays where it is. Focused the plain way, the browser brought the article's top
 * into view: a Stop pressed while the view followed a reply taller than the log scrolled it up
 * by the height of a line, off the end, and the reply's growth then kept it there.
 */
const STEPPING_STONE: FocusOptions = { preventScroll: true }

/** What on a reply should take focus. */
export type FocusTarget = 'article' | 'regenerate' | 'retry'

/** A reply's focus targets as they are now (null when not shown). */
export type ReplyElements = { article: HTMLElement | null; regenerate: HTMLElement | null; retryLine: HTMLElement | null }

type Intent = {
  target: FocusTarget
  /** The reply the action was taken on. */
  owner: string
  /** Served by the reply that replaces the owner, not by the owner itself. */
  successor: boolean
}

/** The last control that held focus inside one reply, and whether it was in the retry box. */
type Held = { element: HTMLElement | null; inRetry: boolean }

export type ReplyFocus = ReturnType<typeof createReplyFocus>

function activeElement(): HTMLElement | null {
  const active = document.activeElement
  return active instanceof HTMLElement && active !== document.body ? active : null
}

function pick(target: FocusTarget, elements: ReplyElements): HTMLElement | null {
  if (target === 'regenerate') return elements.regenerate
  if (target === 'retry') return elements.retryLine
  return elements.article
}

/** The per-tab store of focus wishes and the replies shown, by anchor. */
function createReplyFocus() {
  const intents = new Map<string, Intent>()
  const shown = new Map<string, { messageId: string; article: HTMLElement }>()

  return {
    /** After an action on reply `messageId`: focus `target` on it as soon as it can take it. */
    ask(anchorId: string, messageId: string, target: FocusTarget): void {
      intents.set(anchorId, { target, owner: messageId, successor: false })
    },

    /** After a regenerate of reply `messageId`: focus the reply that replaces it once it is shown. */
    askSuccessor(anchorId: string, messageId: string, target: FocusTarget = 'article'): void {
      intents.set(anchorId, { target, owner: messageId, successor: true })
    },

    /** The article of the reply shown now for `anchorId` (a stepping stone while it is replaced). */
    articleOf(anchorId: string): HTMLElement | null {
      return shown.get(anchorId)?.article ?? null
    },

    /** A reply is shown for `anchorId`. */
    show(anchorId: string, messageId: string, article: HTMLElement): void {
      shown.set(anchorId, { messageId, article })
    },

    /**
     * A reply goes away (replaced, most often). Focus inside it would fall to <body>: the reply
     * that replaces it takes it over, on its retry line when it was on this one's.
     */
    hide(anchorId: string, messageId: string, elements: ReplyElements): void {
      if (shown.get(anchorId)?.messageId === messageId) shown.delete(anchorId)
      const active = activeElement()
      if (!active || !elements.article?.contains(active)) return
      const intent = intents.get(anchorId)
      if (intent?.successor && intent.owner === messageId) return
      const onRetry = !!elements.retryLine?.contains(active) || active.closest('[data-retry]') !== null || (intent?.owner === messageId && intent.target === 'retry')
      intents.set(anchorId, { target: onRetry ? 'retry' : 'article', owner: messageId, successor: true })
    },

    /** After every commit of a reply: serve a wish it can take, or keep focus from falling to <body>. */
    settle(anchorId: string, messageId: string, elements: ReplyElements, held: Held): void {
      const { article } = elements
      if (!article) return
      const active = activeElement()
      const inside = !!active && article.contains(active)
      const lost = !active || (inside && active.matches(':disabled'))
      const intent = intents.get(anchorId)
      if (intent && (intent.successor ? intent.owner !== messageId : intent.owner === messageId)) {
        if (!lost && !inside) {
          // The operator has gone elsewhere since: their focus stays where they put it.
          intents.delete(anchorId)
          return
        }
        const target = pick(intent.target, elements)
        // A control is focused the plain way (into view if it is not); the article as a stepping stone.
        if (target && focusIfAble(target, target === article ? STEPPING_STONE : undefined)) intents.delete(anchorId)
        else if (intent.successor) {
          // The new reply has no such control (a retry that succeeded has no retry box): its article.
          intents.delete(anchorId)
          focusIfAble(article, STEPPING_STONE)
        } else if (lost) focusIfAble(article, STEPPING_STONE)
        return
      }
      // Nothing asked: a control that held focus here went away or was disabled (Stop once the
      // reply ended, the retry box once the retry succeeded). Focus stays in this reply.
      const gone = held.element && (!held.element.isConnected || held.element.matches(':disabled'))
      if (!lost || !gone) return
      if (held.inRetry && !elements.retryLine) {
        // The retry box moved on to the reply the retry is writing (not shown yet): its line takes
        // focus there; this article holds it until then.
        intents.set(anchorId, { target: 'retry', owner: messageId, successor: true })
      }
      // Where the view is stays the operator's: the reply may be far from it (a control replaced
      // under the focus, a code block highlighted, while they went to the session's start).
      focusIfAble((held.inRetry ? elements.retryLine : null) ?? article, STEPPING_STONE)
    },
  }
}

const registries = new WeakMap<ChatRuntime, ReplyFocus>()

/** The focus store of a runtime (one per tab). */
export function replyFocusOf(runtime: ChatRuntime): ReplyFocus {
  let focus = registries.get(runtime)
  if (!focus) registries.set(runtime, (focus = createReplyFocus()))
  return focus
}

export type ReplyFocusRefs = {
  article: RefObject<HTMLElement | null>
  regenerate: RefObject<HTMLButtonElement | null>
  retryLine: RefObject<HTMLParagraphElement | null>
}

function elementsOf(refs: ReplyFocusRefs): ReplyElements {
  return { article: refs.article.current, regenerate: refs.regenerate.current, retryLine: refs.retryLine.current }
}

/**
 * Binds one reply to the focus store: it registers its article, serves the wishes meant for it
 * after each commit, and hands focus on when it goes. Returns the two ways to make a wish.
 */
export function useReplyFocus(anchorId: string | undefined, replyId: string, refs: ReplyFocusRefs) {
  const focus = replyFocusOf(useChatRuntime())
  const held = useRef<Held>({ element: null, inRetry: false })

  useLayoutEffect(() => {
    const article = refs.article.current
    if (!anchorId || !article) return
    const record = held.current
    focus.show(anchorId, replyId, article)
    const onFocusIn = (event: FocusEvent) => {
      if (!(event.target instanceof HTMLElement)) return
      record.element = event.target
      record.inRetry = event.target.closest('[data-retry]') !== null
    }
    // Focus taken elsewhere on purpose; a control removed or disabled under it has no related target.
    const onFocusOut = (event: FocusEvent) => {
      if (event.relatedTarget instanceof Node && !article.contains(event.relatedTarget)) record.element = null
    }
    article.addEventListener('focusin', onFocusIn)
    article.addEventListener('focusout', onFocusOut)
    return () => {
      article.removeEventListener('focusin', onFocusIn)
      article.removeEventListener('focusout', onFocusOut)
      // Runs before React removes the reply's elements, so focus is still where it was.
      focus.hide(anchorId, replyId, elementsOf(refs))
    }
  }, [anchorId, focus, replyId, refs])

  useLayoutEffect(() => {
    if (anchorId) focus.settle(anchorId, replyId, elementsOf(refs), held.current)
  })

  return useMemo(
    () => ({
      ask: (target: FocusTarget) => {
        if (anchorId) focus.ask(anchorId, replyId, target)
      },
      askSuccessor: () => {
        if (anchorId) focus.askSuccessor(anchorId, replyId)
      },
    }),
    [anchorId, focus, replyId],
  )
}
