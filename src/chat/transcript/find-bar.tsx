import { memo, useId, useMemo, useState, type KeyboardEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'

export type FindBarProps<Item> = {
  items: readonly Item[]
  itemText: (item: Item) => string
  /** Brings the row at `index` into view and marks it. */
  onReveal: (index: number) => void
  onClear: () => void
}

/** The id of the find field, for the shortcut that focuses it. */
export const FIND_INPUT_ID = 'find-in-session'

/**
 * Find in session: the transcript is windowed, so the browser's find-in-page sees only the rows on
 * screen; this searches every message and scrolls to each match. Enter goes to the next match,
 * Shift+Enter to the previous one, Escape clears. Memoized: the transcript renders many times a
 * second while a reply streams, and the field has nothing new to show then.
 */
export const FindBar = memo(function FindBar<Item>({ items, itemText, onReveal, onClear }: FindBarProps<Item>) {
  const { t, i18n } = useTranslation()
  const [query, setQuery] = useState('')
  const [current, setCurrent] = useState(-1)
  const statusId = useId()
  const needle = query.trim().toLocaleLowerCase(i18n.language)
  const matches = useMemo(() => {
    if (!needle) return []
    const found: number[] = []
    items.forEach((item, index) => {
      if (itemText(item).toLocaleLowerCase(i18n.language).includes(needle)) found.push(index)
    })
    return found
  }, [i18n.language, itemText, items, needle])

  const go = (step: 1 | -1) => {
    if (matches.length === 0) return
    const next = current < 0 ? (step === 1 ? 0 : matches.length - 1) : (current + step + matches.length) % matches.length
    setCurrent(next)
    onReveal(matches[next] as number)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing || event.keyCode === 229) return
    if (event.key === 'Enter') {
      event.preventDefault()
      go(event.shiftKey ? -1 : 1)
    } else if (event.key === 'Escape' && query) {
      event.preventDefault()
      setQuery('')
      setCurrent(-1)
      onClear()
    }
  }
  const shown = current >= 0 && current < matches.length ? current + 1 : 0
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
          setCurrent(-1)
          onClear()
        }}
        onKeyDown={onKeyDown}
      />
      {needle ? (
        <span id={statusId} className="find-bar__status" role="status">
          {matches.length === 0 ? t('find.none') : t('find.count', { current: shown, total: matches.length })}
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
