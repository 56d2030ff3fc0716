/**
 * The words of the interface for a component: `t` in the current language, and the instance.
 *
 * react-i18next's own hook does, at every render of every component that calls it, what only a
 * language change can alter (its options merged afresh, namespaces checked as loaded, its
 * external-store snapshot compared field by field): while a reply streams, tens of components
 * render ten times a second, and that was a tenth of the page's script time. This hook keeps one
 * snapshot per instance and language, made when the language changes, shared by every component;
 * it reads the instance from react-i18next's provider as that hook does, and renders again on the
 * same event (`languageChanged`). Every table is loaded before its language is switched to
 * (setup.ts), so there is nothing to wait for.
 */
import { useContext, useSyncExternalStore } from 'react'
import type { i18n as I18n, TFunction } from 'i18next'
import { getI18n, I18nContext } from 'react-i18next'

export type Translation = { t: TFunction; i18n: I18n }

type Entry = { subscribe: (changed: () => void) => () => void; get: () => Translation }

const entries = new WeakMap<I18n, Entry>()

function entryFor(i18n: I18n): Entry {
  let entry = entries.get(i18n)
  if (entry) return entry
  let current: Translation | undefined
  let language: string | undefined
  entry = {
    subscribe(changed) {
      i18n.on('languageChanged', changed)
      return () => i18n.off('languageChanged', changed)
    },
    get() {
      if (current === undefined || language !== i18n.language) {
        language = i18n.language
        current = { t: wordsOnce(i18n.getFixedT(language)), i18n }
      }
      return current
    },
  }
  entries.set(i18n, entry)
  return entry
}

/**
 * `t` with its words kept: a key asked for with no options (a label, a status, a button) reads
 * the same until the language changes, and a new snapshot (a new `t`) comes with that change.
 * i18next resolves a key afresh on every call (its namespaces, fallbacks, nesting and
 * interpolation), which for the labels of every row a stream renders was most of its cost.
 * Calls with options (counts, values) go to i18next as they are.
 */
function wordsOnce(t: TFunction): TFunction {
  const call = t as unknown as (...args: unknown[]) => unknown
  const words = new Map<string, unknown>()
  const kept = (...args: unknown[]): unknown => {
    const [key] = args
    if (args.length !== 1 || typeof key !== 'string') return call(...args)
    let text = words.get(key)
    if (text === undefined) {
      text = call(key)
      words.set(key, text)
    }
    return text
  }
  return Object.assign(kept, t) as unknown as TFunction
}

export function useTranslation(): Translation {
  const i18n = useContext(I18nContext)?.i18n ?? getI18n()
  const entry = entryFor(i18n)
  return useSyncExternalStore(entry.subscribe, entry.get, entry.get)
}
