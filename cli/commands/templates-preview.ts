// `svc templates preview`: renders a template file locally with rows from a JSON file. No server,
// no database: the render pipeline's own checks (server/render/checks.ts) and the same engine
// entry the render pool runs (renderResult), on this thread.
import { createHash } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { einvoiceXml, renderResult } from '../../engine/render.js'
import { compileParameterCheck } from '../../engine/template/parameters.js'
import type { TemplateDefinition } from '../../engine/template/definition.js'
import type { DatasetValues, RenderInput, RenderLimits, Row } from '../../engine/types.js'
import { checkFormat, checkParameters } from '../../server/render/checks.js'
import { engineProblem } from '../../server/render/outcome.js'
import { UsageError } from '../io.js'
import { isDpi } from '../../engine/zpl/dpi.js'
import { documentPngs, labelPngs, labelsPdf, numbered } from './templates-preview-pages.js'

export interface PreviewOptions {
  data?: string
  parameters?: string
  context?: string
  output: string
  dpi?: string
  /** Also write the e-invoice XML the PDF embeds here (templates with `document.einvoice`). */
  xml?: string
}
/** `files`: every file written (several for `-o out-%d.png`); `warnings`: e.g. characters no font has. */
export interface PreviewResult {
  output: string
  format: 'pdf' | 'zpl' | 'png'
  bytes: number
  pageCount: number
  labelCount: number
  files: string[]
  warnings: string[]
}

function parseJsonOption (name: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {}
  let value: unknown
  try { value = JSON.parse(text) } catch { throw new UsageError(`--${name}: not valid JSON`) }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--${name}: expected a JSON object`)
  return value as Record<string, unknown>
}

/** `{ "<dataset code>": rows }` → engine datasets: a `single` dataset is one row (or null), `multiple` an array. */
export function datasetsFromFile (def: TemplateDefinition, file: unknown): DatasetValues {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) {
    throw new UsageError('--data: expected a JSON object { "<dataset code>": rows }')
  }
  const given = file as Record<string, unknown>
  const out: DatasetValues = {}
  const known = new Set((def.datasets ?? []).map((d) => d.code))
  for (const key of Object.keys(given)) if (!known.has(key)) throw new UsageError(`--data: "${key}" is not a dataset of template ${def.code}`)
  for (const d of def.datasets ?? []) {
    const v = Object.hasOwn(given, d.code) ? given[d.code] : undefined
    if (d.cardinality === 'single') {
      const row: unknown = Array.isArray(v) ? v[0] : v
      if (row !== undefined && row !== null && (typeof row !== 'object' || Array.isArray(row))) throw new UsageError(`--data: "${d.code}" must be a row object`)
      out[d.code] = (row ?? null) as Row | null
    } else {
      if (v !== undefined && v !== null && !Array.isArray(v)) throw new UsageError(`--data: "${d.code}" must be an array of rows`)
      out[d.code] = (v ?? []) as Row[]
    }
  }
  return out
}

export async function preview (
  def: TemplateDefinition,
  text: string,
  options: PreviewOptions,
  limits: RenderLimits
): Promise<PreviewResult> {
  const ext = extname(options.output).toLowerCase()
  if (ext !== '.pdf' && ext !== '.zpl' && ext !== '.png') {
    throw new UsageError('-o: the file name must end in .pdf, .zpl or .png')
  }
  // A .png is a picture of either format, and a label template may also be previewed as a PDF (one
  // page per label); otherwise the file names the format, as `format` does in a render.
  if (ext !== '.png' && !(def.format === 'label' && ext === '.pdf')) {
    checkFormat({ code: def.code, outputFormat: def.format === 'label' ? 'zpl' : 'pdf' }, ext.slice(1))
  }
  const parameters = checkParameters(compileParameterCheck(def), parseJsonOption('parameters', options.parameters))
  const dpi = options.dpi === undefined ? undefined : Number(options.dpi)
  if (dpi !== undefined && !isDpi(dpi)) throw new UsageError('--dpi: must be 152, 203, 300 or 600')
  if (dpi !== undefined && def.format !== 'label') throw new UsageError('--dpi: only labels have a printer resolution')
  let data: unknown = {}
  if (options.data !== undefined) {
    try {
      data = JSON.parse(await readFile(options.data, 'utf8'))
    } catch (err) {
      throw new UsageError(`--data: ${(err as Error).message}`)
    }
  }
  const input: RenderInput = {
    // Content-addressed: an edited file never hits a stale compiled entry.
    versionKey: `preview:${createHash('sha256').update(text).digest('hex')}`,
    definition: text,
    parameters,
    context: parseJsonOption('context', options.context),
    datasets: datasetsFromFile(def, data),
    limits,
    labelDpi: dpi
  }
  const result = renderResult(input)
  if (!result.ok) throw engineProblem(result)
  const files = await writePictures(def, result.bytes, options.output, ext, result.labelDpi)
  if (options.xml !== undefined) {
    // The same XML the PDF embeds: the invoice is built from the same input (rules already passed).
    const xml = einvoiceXml(input)
    if (xml === null) throw new UsageError('--xml: the template has no document.einvoice')
    await writeFile(options.xml, xml)
    files.push({ file: options.xml, bytes: Buffer.byteLength(xml) })
  }
  const bytes = files.reduce((n, f) => n + f.bytes, 0)
  return {
    output: options.output,
    format: ext.slice(1) as PreviewResult['format'],
    bytes,
    pageCount: result.pageCount,
    labelCount: result.labelCount,
    files: files.map((f) => f.file),
    warnings: result.warnings ?? []
  }
}

/** The render as asked: as is, a labels PDF, the first picture (`x.png`) or one per page/label (`x-%d.png`). */
async function writePictures (
  def: TemplateDefinition,
  rendered: Uint8Array,
  output: string,
  ext: string,
  dpi?: number
): Promise<Array<{ file: string, bytes: number }>> {
  const isLabel = def.format === 'label'
  const each = ext === '.png' && output.includes('%d')
  let pictures: Uint8Array[] = [rendered]
  if (ext === '.png' || (isLabel && ext === '.pdf')) {
    const zpl = Buffer.from(rendered).toString('utf8')
    pictures = isLabel
      ? await labelPngs(def, zpl, each || ext === '.pdf' ? undefined : 1, dpi)
      : await documentPngs(rendered, each ? undefined : 1)
    if (isLabel && ext === '.pdf') pictures = [await labelsPdf(def, pictures as Buffer[])]
  }
  if (!each) pictures = pictures.slice(0, 1)
  const files: Array<{ file: string, bytes: number }> = []
  for (const [i, p] of pictures.entries()) {
    const file = each ? numbered(output, i + 1) : output
    await writeFile(file, p)
    files.push({ file, bytes: p.byteLength })
  }
  return files
}
