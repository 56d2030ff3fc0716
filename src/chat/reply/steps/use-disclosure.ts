import { useState } from 'react'

/**
 * Open or folded: `openByDefault` until the operator toggles, and the operator's choice for as
 * long as the step stays in the `phase` it was made in. When the step moves on (a tool starts
 * running, finishes, fails; reasoning gives way to the answer), its default for the new phase
 * applies again, so a finished tool folds even if it was opened while it ran.
 */
export function useDisclosure(phase: string, openByDefault: boolean): [open: boolean, toggle: () => void] {
  const [choice, setChoice] = useState<{ phase: string; open: boolean }>()
  const open = choice?.phase === phase ? choice.open : openByDefault
  return [open, () => setChoice({ phase, open: !open })]
}
