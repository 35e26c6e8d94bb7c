// `svc templates preview`: renders a template file locally with rows from a JSON file. No server,
// no database: the render pipeline's own checks (server/render/checks.ts) and the same engine
// entry the render pool runs (renderResult), on this thread.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { promisify } from 'node:util'
import { renderResult } from '../../workers/render-task.js'
import { compileParameterCheck } from '../../workers/template/parameters.js'
import type { TemplateDefinition } from '../../workers/template/definition.js'
import type { DatasetValues, RenderLimits, Row } from '../../workers/types.js'
import { checkFormat, checkParameters } from '../../server/render/checks.js'
import { engineProblem } from '../../server/render/outcome.js'
import { UsageError } from '../io.js'

export interface PreviewOptions { data?: string, parameters?: string, context?: string, output: string }
export interface PreviewResult {
  output: string
  format: 'pdf' | 'zpl' | 'png'
  bytes: number
  pageCount: number
  labelCount: number
  /** e.g. characters no font has (drawn as boxes) */
  warnings: string[]
}

const run = promisify(execFile)

function parseJsonOption (name: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {}
  let value: unknown
  try { value = JSON.parse(text) } catch { throw new UsageError(`--${name}: not valid JSON`) }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--${name}: expected a JSON object`)
  return value as Record<string, unknown>
}

/** `{ "<dataset code>": rows }` → engine datasets: a `single` dataset is one row (or null), `multiple` an array. */
export function datasetsFromFile (def: TemplateDefinition, file: unknown): DatasetValues {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) throw new UsageError('--data: expected a JSON object { "<dataset code>": rows }')
  const given = file as Record<string, unknown>
  const out: DatasetValues = {}
  const known = new Set((def.datasets ?? []).map((d) => d.code))
  for (const key of Object.keys(given)) if (!known.has(key)) throw new UsageError(`--data: "${key}" is not a dataset of template ${def.code}`)
  for (const d of def.datasets ?? []) {
    const v = Object.hasOwn(given, d.code) ? given[d.code] : undefined
    if (d.cardinality === 'single') {
      const row = Array.isArray(v) ? v[0] : v
      if (row !== undefined && row !== null && (typeof row !== 'object' || Array.isArray(row))) throw new UsageError(`--data: "${d.code}" must be a row object`)
      out[d.code] = (row ?? null) as Row | null
    } else {
      if (v !== undefined && v !== null && !Array.isArray(v)) throw new UsageError(`--data: "${d.code}" must be an array of rows`)
      out[d.code] = (v ?? []) as Row[]
    }
  }
  return out
}

async function labelPng (def: TemplateDefinition, zpl: string): Promise<Buffer> {
  let mod: typeof import('zpl-renderer-js')
  try {
    mod = await import('zpl-renderer-js')
  } catch {
    throw new Error('PNG previews of labels need the devDependency zpl-renderer-js, which is not installed: run `npm install --include=dev`')
  }
  const { api } = await mod.ready
  const label = def.label as NonNullable<TemplateDefinition['label']>
  const dpmm = Math.round(label.dpi / 25.4)
  // The first label only: a preview, and the renderer takes ~0.2 s per label.
  return Buffer.from(await api.zplToBase64Async(zpl, label.widthIn * 25.4, label.heightIn * 25.4, dpmm), 'base64')
}

async function documentPng (pdf: Uint8Array): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-preview-'))
  try {
    await writeFile(join(dir, 'doc.pdf'), pdf)
    try {
      await run('pdftoppm', ['-png', '-r', '100', '-singlefile', join(dir, 'doc.pdf'), join(dir, 'page')])
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('PNG previews of documents need pdftoppm: apt-get install poppler-utils')
      throw new Error(`pdftoppm failed: ${(err as Error).message}`)
    }
    return await readFile(join(dir, 'page.png'))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export async function preview (
  def: TemplateDefinition,
  text: string,
  options: PreviewOptions,
  limits: RenderLimits
): Promise<PreviewResult> {
  const ext = extname(options.output).toLowerCase()
  if (ext !== '.pdf' && ext !== '.zpl' && ext !== '.png') { throw new UsageError('-o: the file name must end in .pdf, .zpl or .png') }
  // A .png is a picture of either format; otherwise the file names the format, as `format` does in a render.
  if (ext !== '.png') { checkFormat({ code: def.code, outputFormat: def.format === 'label' ? 'zpl' : 'pdf' }, ext.slice(1)) }
  const parameters = checkParameters(compileParameterCheck(def), parseJsonOption('parameters', options.parameters))
  let data: unknown = {}
  if (options.data !== undefined) {
    try {
      data = JSON.parse(await readFile(options.data, 'utf8'))
    } catch (err) {
      throw new UsageError(`--data: ${(err as Error).message}`)
    }
  }
  const result = renderResult({
    // Content-addressed: an edited file never hits a stale compiled entry.
    versionKey: `preview:${createHash('sha256').update(text).digest('hex')}`,
    definition: text,
    parameters,
    context: parseJsonOption('context', options.context),
    datasets: datasetsFromFile(def, data),
    limits
  })
  if (!result.ok) throw engineProblem(result)
  let bytes: Uint8Array = result.bytes
  if (ext === '.png') { bytes = def.format === 'label' ? await labelPng(def, Buffer.from(bytes).toString('utf8')) : await documentPng(bytes) }
  await writeFile(options.output, bytes)
  return {
    output: options.output,
    format: ext.slice(1) as PreviewResult['format'],
    bytes: bytes.byteLength,
    pageCount: result.pageCount,
    labelCount: result.labelCount,
    warnings: result.warnings ?? []
  }
}
