import { memo, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { MAX_PAGE } from '../../thread/pages'
import { findStatus, heldMatches, knownCount, mergeMatches, placeOf, positionOf, stepTo, type FindPlace, type FindStatus, type Match } from '../../thread/find-matches'

/** Where find-in-session looks beyond the rows held: the daemon's search, by seq. */
export type RemoteFind = {
  search: (q: string, limit: number, signal?: AbortSignal) => Promise<{ hits: ReadonlyArray<{ seq: number }>; has_more: boolean }>
  /** Whether the message at `seq` is held (then the rows say whether it matches). */
  held: (seq: number) => boolean
}

export type FindBarProps<Item> = {
  items: readonly Item[]
  itemText: (item: Item) => string
  /** The seq of the message a row shows, when it has one: matches go in that order. */
  itemSeq?: (item: Item) => number | undefined
  /** Brings the row at `index` into view and marks it. */
  onReveal: (index: number, needle: string) => void
  /** Brings the message at `seq` into view once it is read (a daemon hit not held). */
  onRevealSeq?: (seq: number, needle: string) => void
  onClear: () => void
  remote?: RemoteFind
}

/** The id of the find field, for the shortcut that focuses it. */
export const FIND_INPUT_ID = 'find-in-session'

/**
 * Hits asked of the daemon at once: its largest page. It answers oldest first and has no way to
 * ask for the hits after a seq, so a smaller page left every hit between its last and the rows
 * held unknown (and the held ones numbered as if there were none between).
 */
const REMOTE_LIMIT = MAX_PAGE
const NO_HITS: readonly number[] = []
/** Typing this still is a query worth asking the daemon. */
const REMOTE_QUIET_MS = 150

/**
 * Find in session: the transcript is windowed, so the browser's find-in-page sees only the rows on
 * screen; this searches every row held and, for what is not held, asks the daemon, then scrolls to
 * each match (reading the page of a hit not held). Enter goes to the next match, Shift+Enter to the
 * previous one, Escape clears. Memoized: the transcript renders many times a second while a reply
 * streams, and the field has nothing new to show then.
 */
export const FindBar = memo(function FindBar<Item>({ items, itemText, itemSeq, onReveal, onRevealSeq, onClear, remote }: FindBarProps<Item>) {
  const { t, i18n } = useTranslation()
  const [query, setQuery] = useState('')
  const [current, setCurrent] = useState<FindPlace>()
  const [found, setFound] = useState<{ needle: string; seqs: readonly number[]; more: boolean } | undefined>()
  /** Enter pressed before the daemon answered: go once it does. */
  const pendingGo = useRef<1 | -1 | undefined>(undefined)
  const statusId = useId()
  const needle = query.trim().toLocaleLowerCase(i18n.language)
  const local = useMemo(() => heldMatches(items, itemText, itemSeq, needle, i18n.language), [i18n.language, itemSeq, itemText, items, needle])

  const searching = remote !== undefined && needle !== '' && found?.needle !== needle
  useEffect(() => {
    if (!remote || !needle) return
    const controller = new AbortController()
    const timer = setTimeout(() => {
      remote
        .search(needle, REMOTE_LIMIT, controller.signal)
        .then(({ hits, has_more }) => setFound({ needle, seqs: hits.map((hit) => hit.seq), more: has_more }))
        // Unreachable or refused: the rows held are what is searched.
        .catch(() => {
          if (!controller.signal.aborted) setFound({ needle, seqs: [], more: false })
        })
    }, REMOTE_QUIET_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [needle, remote])

  // The daemon's answer for this needle, when find asks the daemon at all.
  const answer = remote && found?.needle === needle ? found : undefined
  const hits = answer?.seqs ?? NO_HITS
  const matches = useMemo(() => (remote ? mergeMatches(local, hits, remote.held) : local), [hits, local, remote])
  const more = answer?.more ?? false
  const position = positionOf(matches, current)

  const goTo = (next: number) => {
    const match = matches[next] as Match
    setCurrent(placeOf(match))
    if (match.index !== undefined) onReveal(match.index, needle)
    else onRevealSeq?.(match.seq, needle)
  }
  const go = (step: 1 | -1) => {
    if (matches.length === 0) {
      if (searching) pendingGo.current = step
      return
    }
    goTo(stepTo(position, step, matches.length))
  }
  // The daemon answered after Enter: go as it asked.
  useEffect(() => {
    const step = pendingGo.current
    if (step === undefined || searching) return
    pendingGo.current = undefined
    if (matches.length > 0) goTo(step === 1 ? 0 : matches.length - 1)
  })

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing || event.keyCode === 229) return
    if (event.key === 'Enter') {
      event.preventDefault()
      go(event.shiftKey ? -1 : 1)
    } else if (event.key === 'Escape' && query) {
      event.preventDefault()
      setQuery('')
      setCurrent(undefined)
      pendingGo.current = undefined
      onClear()
    }
  }
  const status = findStatus({ matches: matches.length, position, known: knownCount(matches, hits, more), more, searching })
  return (
    <div className="find-bar" role="search">
      <label className="visually-hidden" htmlFor={FIND_INPUT_ID}>
        {t('find.label')}
      </label>
      <input
        id={FIND_INPUT_ID}
        type="search"
        className="find-bar__input"
        value={query}
        placeholder={t('find.placeholder')}
        aria-describedby={needle ? statusId : undefined}
        onChange={(e) => {
          setQuery(e.target.value)
          setCurrent(undefined)
          pendingGo.current = undefined
          onClear()
        }}
        onKeyDown={onKeyDown}
      />
      {needle ? (
        <span id={statusId} className="find-bar__status" role="status">
          {statusWords(t, status)}
        </span>
      ) : null}
      {needle && matches.length > 0 ? (
        <>
          <button type="button" className="button" onClick={() => go(-1)}>
            {t('find.previous')}
          </button>
          <button type="button" className="button" onClick={() => go(1)}>
            {t('find.next')}
          </button>
        </>
      ) : null}
    </div>
  )
}) as <Item>(props: FindBarProps<Item>) => ReactNode

function statusWords(t: ReturnType<typeof useTranslation>['t'], status: FindStatus): string {
  switch (status.key) {
    case 'find.searching':
    case 'find.none':
      return t(status.key)
    case 'find.found':
    case 'find.foundMore':
    case 'find.countPast':
      return t(status.key, { count: status.count })
    case 'find.count':
    case 'find.countMore':
      return t(status.key, { current: status.current, total: status.total })
  }
}
