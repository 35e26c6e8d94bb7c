// Renders every named case (cases.ts), the 200-invoice corpus (corpus.ts) and the XRechnung
// variant into a temporary folder, for the tests that hand the files to external tools.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { renderResult } from '../../../engine/render.js'
import { CASES, XRECHNUNG_CASE, type Case } from './cases.js'
import { corpusInvoice } from './corpus.js'
import { einvoiceTemplate, renderInput } from './fixtures.js'

export const CORPUS = 200

export interface Rendered { name: string, file: string, long: boolean }
export interface RenderedSet {
  dir: string
  /** The cases, then the corpus. */
  files: Rendered[]
  xrechnung: Rendered
  remove: () => void
}

function renderTo (c: Case, file: string): void {
  const r = renderResult(renderInput(einvoiceTemplate(c.mapping), c.data))
  assert.ok(r.ok, `${c.name}: ${r.ok ? '' : r.message}`)
  writeFileSync(file, r.bytes)
}

export function renderAll (): RenderedSet {
  const dir = mkdtempSync(join(tmpdir(), 'einvoice-'))
  const files: Rendered[] = []
  for (const [i, c] of CASES.entries()) {
    const file = join(dir, `case-${i}.pdf`)
    renderTo(c, file)
    files.push({ name: c.name, file, long: false })
  }
  for (let i = 0; i < CORPUS; i++) {
    const data = corpusInvoice(i)
    const name = `corpus ${i} (${data.scenario}, ${data.lines.length} lines)`
    const file = join(dir, `corpus-${i}.pdf`)
    renderTo({ name, data, mapping: CASES[0]!.mapping }, file)
    files.push({ name, file, long: data.lines.length >= 100 })
  }
  const xrechnung = { name: XRECHNUNG_CASE.name, file: join(dir, 'xrechnung.pdf'), long: false }
  renderTo(XRECHNUNG_CASE, xrechnung.file)
  return { dir, files, xrechnung, remove: () => { rmSync(dir, { recursive: true, force: true }) } }
}
