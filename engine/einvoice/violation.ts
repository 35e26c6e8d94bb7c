// One broken rule as the checks collect it (rules.ts reports them together), and the one text a
// broken rule is reported with: `e-invoice rule BR-CO-15 (BT-112 …): detail`.
import { RenderError } from '../errors.js'
import { termLabel } from './terms.js'

export interface Violation { rule: string, key: string, detail: string }

/** How a broken rule reads in a render failure. */
export const describe = (v: Violation): string => `e-invoice rule ${v.rule} (${termLabel(v.key)}): ${v.detail}`

/** The render failure for one broken rule (a value of the wrong kind, while reading the data). */
export function violation (rule: string, key: string, detail: string): RenderError {
  return new RenderError('RENDER_FAILED', describe({ rule, key, detail }))
}

/** Whether any member of a group of optional terms is given. */
export const anyGiven = (o: object): boolean => Object.values(o).some((x: unknown) => x !== undefined)
