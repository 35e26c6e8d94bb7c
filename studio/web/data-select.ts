// The data selector: the rows file the studio was started with, a dataset execution against one
// environment of the workspace (the server applies the API's policies and limits), or rows
// generated from the datasets' declared fields.
import type { RenderData, StudioSession } from '../contract.js'

/** The choices a session offers, as <option> values: `file` or `rows`, `generated`, `dataset:ENV`. */
export function dataChoices (s: StudioSession): Array<{ value: string, label: string }> {
  const out: Array<{ value: string, label: string }> = []
  if (s.dataFile !== null) out.push({ value: 'file', label: `rows file: ${s.dataFile}` })
  else if (s.rows !== null) out.push({ value: 'rows', label: 'sample rows' })
  // Generated rows before the environments: without a rows file the first render needs no
  // database and no parameters to bind (a dataset execution usually needs both).
  out.push({ value: 'generated', label: 'generated from the declared fields' })
  for (const env of s.environments) out.push({ value: `dataset:${env}`, label: `dataset execution: ${env}` })
  return out
}

/** The render request's `data` for a selector value. */
export function dataOf (value: string, s: StudioSession): RenderData {
  if (value === 'file') return { kind: 'file' }
  if (value === 'rows' && s.rows !== null) return { kind: 'rows', rows: s.rows }
  if (value.startsWith('dataset:')) return { kind: 'dataset', environment: value.slice('dataset:'.length) }
  return { kind: 'generated' }
}

export function fillSelect (select: HTMLSelectElement, s: StudioSession): void {
  select.replaceChildren(...dataChoices(s).map((c) => new Option(c.label, c.value)))
}
