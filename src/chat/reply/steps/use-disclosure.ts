import { useState } from 'react'
import { setNewest } from '../../../storage/bounded'

/**
 * What the operator did to a reply's steps, kept by step (the reply's message id and the part's
 * index) for the page's lifetime: the transcript is windowed, and a reply scrolled out of it and
 * back, or whose page was let go and read again, mounts afresh. Without this it came back with
 * every step folded again and a loaded output gone.
 */
type Choice = { phase: string; open: boolean }

/** Enough for every step an operator opens in a long session; the oldest are dropped first. */
const LIMIT = 500
/** Whole outputs kept, in characters (a tool's output can be megabytes); the oldest are dropped first. */
const OUTPUT_CHARS = 4_000_000

const choices = new Map<string, Choice>()
const wholeInputs = new Map<string, true>()
const outputs = new Map<string, string>()
let outputChars = 0

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  setNewest(map, key, value, LIMIT)
}

/**
 * Open or folded: `openByDefault` until the operator toggles, and the operator's choice for as
 * long as the step stays in the `phase` it was made in. When the step moves on (a tool starts
 * running, finishes, fails; reasoning gives way to the answer), its default for the new phase
 * applies again, so a finished tool folds even if it was opened while it ran. The choice outlives
 * the step's mount (see above).
 */
export function useDisclosure(key: string, phase: string, openByDefault: boolean): [open: boolean, toggle: () => void] {
  const [choice, setChoice] = useState<Choice | undefined>(() => choices.get(key))
  const open = choice?.phase === phase ? choice.open : openByDefault
  return [
    open,
    () => {
      const next = { phase, open: !open }
      remember(choices, key, next)
      setChoice(next)
    },
  ]
}

/** Whether the operator asked for a tool's whole input, kept as the choices are; and the asking. */
export function useWholeInput(key: string): [whole: boolean, showWhole: () => void] {
  const [whole, setWhole] = useState(() => wholeInputs.has(key))
  return [
    whole,
    () => {
      remember(wholeInputs, key, true)
      setWhole(true)
    },
  ]
}

/** A tool's whole output loaded for the step at `key`, if it is still kept. */
export function keptOutput(key: string): string | undefined {
  const text = outputs.get(key)
  if (text !== undefined) remember(outputs, key, text)
  return text
}

/** Keeps a loaded whole output; what exceeds OUTPUT_CHARS is let go, oldest first (one larger than that is not kept). */
export function keepOutput(key: string, text: string): void {
  const before = outputs.get(key)
  if (before !== undefined) outputChars -= before.length
  outputs.delete(key)
  if (text.length > OUTPUT_CHARS) return
  outputs.set(key, text)
  outputChars += text.length
  for (const [oldest, kept] of outputs) {
    if (outputChars <= OUTPUT_CHARS && outputs.size <= LIMIT) break
    outputs.delete(oldest)
    outputChars -= kept.length
  }
}

/** Forgets every step's kept state: the page keeps it for its lifetime; each test and story starts from nothing. */
export function forgetSteps(): void {
  choices.clear()
  wholeInputs.clear()
  outputs.clear()
  outputChars = 0
}
