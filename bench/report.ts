/**
 * From raw runs to the figures: medians per subject, the ratio Rebound / peer (throttled), the
 * budgets, and the Markdown the benchmark prints.
 */
import { median, round } from './stats'
import type { SubjectKey } from './scenarios'

export type RunOutcome<T> = ({ ok: true } & T) | { ok: false; error: string }

export type SubjectRuns<T> = { runs: Array<RunOutcome<T>>; median: Record<string, number | undefined> }

export type Figure = {
  key: string
  label: string
  unit: string
  digits?: number
  /** Reads the figure from one run; undefined when the run has none. */
  read: (run: Record<string, unknown>) => number | undefined
}

/** Reads a (dotted) numeric field of a run. */
export const field =
  (path: string) =>
  (run: Record<string, unknown>): number | undefined => {
    let v: unknown = run
    for (const part of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined
    if (typeof v === 'boolean') return v ? 1 : 0
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined
  }

/** Infinity ("never") when the run carries `flag`, else the field at `path`. */
export const neverIf =
  (flag: string, path: string) =>
  (run: Record<string, unknown>): number | undefined =>
    run[flag] === true ? Infinity : field(path)(run)

export function medians<T>(runs: Array<RunOutcome<T>>, figures: Figure[]): Record<string, number | undefined> {
  const ok = runs.filter((r) => r.ok) as unknown as Array<Record<string, unknown>>
  return Object.fromEntries(figures.map((f) => [f.key, round(median(ok.map((r) => f.read(r))), f.digits ?? 1)]))
}

export type Budget = {
  scenario: string
  name: string
  /** The figure as judged, worded with its unit. */
  value: string
  holds: boolean | undefined
  /** The floor's figure and Rebound's ratio to it, where the floor ran the scenario. */
  floor?: string
}

const fmt = (v: number | undefined, digits = 1) => (v === undefined ? 'n/a' : v === Infinity ? 'never' : v.toLocaleString('en-US', { maximumFractionDigits: digits }))

/** The floor's figure and Rebound's ratio to it: "2,031 ms (1.62×)". */
export function floorCell(rebound: number | undefined, floor: number | undefined, unit: string, digits = 1): string | undefined {
  if (floor === undefined) return undefined
  const ratio = rebound !== undefined && Number.isFinite(rebound) && Number.isFinite(floor) && floor !== 0 ? ` (${fmt(rebound / floor, 2)}×)` : ''
  return `${fmt(floor, digits)}${unit ? ` ${unit}` : ''}${ratio}`
}

/**
 * The heap budget's floor cell: the bare floor's growth (and Rebound's ratio to it), and the React
 * floor's beside it with whether it stays within `limitPct` too. A React page that only draws the
 * rows keeps the machine code its renders made hot; the budget it misses is out of reach for any
 * page drawn by React on this engine, and the cell says so where the verdict stands.
 */
export function heapFloorCell(rebound: number | undefined, bare: number | undefined, react: number | undefined, limitPct: number): string | undefined {
  const cell = floorCell(rebound, bare, '%')
  if (react === undefined) return cell
  const reactCell = `React floor ${fmt(react)}%${react > limitPct ? ', over the budget too' : ''}`
  return cell === undefined ? reactCell : `${cell}; ${reactCell}`
}

/** A Markdown table of one scenario, with the subjects side by side. */
export function scenarioTable(opts: {
  title: string
  figures: Figure[]
  subjects: Array<{ key: SubjectKey; label: string }>
  medians: Partial<Record<SubjectKey, Record<string, number | undefined>>>
  baseline?: Record<string, number | undefined>
  failures: Partial<Record<SubjectKey, number>>
}): string {
  const { figures, subjects, baseline } = opts
  const hasPeer = subjects.some((s) => s.key === 'peerThrottled')
  const head = ['figure', ...subjects.map((s) => s.label)]
  if (hasPeer) head.push('Rebound / peer (throttled)')
  if (baseline) head.push('Rebound, baseline')
  const lines = [`### ${opts.title}`, '', `| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`]
  for (const f of figures) {
    const cells = subjects.map((s) => fmt(opts.medians[s.key]?.[f.key], f.digits ?? 1))
    const row = [`${f.label}${f.unit ? ` (${f.unit})` : ''}`, ...cells]
    if (hasPeer) {
      const r = opts.medians.rebound?.[f.key]
      const p = opts.medians.peerThrottled?.[f.key]
      row.push(r !== undefined && p !== undefined && p !== 0 && Number.isFinite(r) && Number.isFinite(p) ? `${fmt(r / p, 2)}×` : 'n/a')
    }
    if (baseline) row.push(fmt(baseline[f.key], f.digits ?? 1))
    lines.push(`| ${row.join(' | ')} |`)
  }
  const failed = subjects.filter((s) => opts.failures[s.key]).map((s) => `${s.label}: ${opts.failures[s.key]} failed run(s)`)
  if (failed.length) lines.push('', `Failed runs (left out of the medians): ${failed.join('; ')}.`)
  return lines.join('\n')
}

/** The budgets as a Markdown table and whether each holds; `unjudged` says why a run's figures are not judged (a quick run, V8's flags changed). */
export function budgetTable(budgets: Budget[], unjudged: string | undefined): string {
  const lines = ['### Budgets', '', '| scenario | budget | Rebound | floor (Rebound ÷ floor) | holds |', '| --- | --- | ---: | ---: | :---: |']
  for (const b of budgets) {
    const verdict = unjudged ? `not judged (${unjudged})` : b.holds === undefined ? 'n/a' : b.holds ? 'yes' : '**no**'
    lines.push(`| ${b.scenario} | ${b.name} | ${b.value} | ${b.floor ?? '—'} | ${verdict} |`)
  }
  return lines.join('\n')
}

/** `value ≤ limit`, or undefined when a side is missing. */
export const atMost = (value: number | undefined, limit: number | undefined) => (value === undefined || limit === undefined ? undefined : value <= limit)
export const below = (value: number | undefined, limit: number | undefined) => (value === undefined || limit === undefined ? undefined : value < limit)
export { fmt }
