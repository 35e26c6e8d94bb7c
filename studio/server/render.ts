// POST /api/render: the template being edited, rendered by the render pool the server uses
// (pool/render-pool.ts: the same worker entry and engine), with rows from the --data file, the
// page, a dataset execution against an environment of the workspace, or generated from the
// datasets' declared fields. A render whose request was aborted is cancelled in the pool.
import { createHash } from 'node:crypto'
import { einvoiceXml } from '../../engine/render.js'
import { compileParameterCheck } from '../../engine/template/parameters.js'
import type { TemplateDefinition } from '../../engine/template/definition.js'
import type { DatasetValues, RenderInput } from '../../engine/types.js'
import { isDpi } from '../../engine/zpl/dpi.js'
import type { RenderPool } from '../../pool/render-pool.js'
import type { Config } from '../../server/config.js'
import type { Context } from '../../server/context.js'
import { problem } from '../../server/errors.js'
import { checkParameters } from '../../server/render/checks.js'
import { engineProblem } from '../../server/render/outcome.js'
import { renderLimits } from '../../server/render/pipeline.js'
import { requireEnvironment } from '../../server/services/environments.js'
import type { RenderRequest, RenderResponse } from '../contract.js'
import { generatedRows } from './generated-rows.js'
import { validateText } from './validate.js'

/** What the CLI hands in: its own helpers (the studio room imports nothing of cli/). */
export interface PreviewHelpers {
  /** `svc templates preview`'s rows-file reading: `{ "<dataset code>": rows }` → engine datasets. */
  datasetsFromFile: (def: TemplateDefinition, file: unknown) => DatasetValues
  /** `svc templates preview`'s label pictures: one PNG per label at `dpi`. */
  labelPngs: (def: TemplateDefinition, zpl: string, first?: number, dpi?: number) => Promise<Buffer[]>
}

export interface RenderDeps {
  pool: RenderPool
  config: Pick<Config, 'render'>
  helpers: PreviewHelpers
  /** The --data file's rows (null: none given). */
  fileRows: () => unknown
  /** The workspace's context, when the studio has one (datasets, publish). */
  context: () => Context | null
  workspaceId: string | null
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The rows file's checks throw the CLI's usage errors: here they are the request's fault. */
function fromRows (deps: RenderDeps, def: TemplateDefinition, rows: unknown): DatasetValues {
  try {
    return deps.helpers.datasetsFromFile(def, rows)
  } catch (err) {
    throw problem('VALIDATION_FAILED', (err as Error).message.replace(/^--data: /, 'rows: '))
  }
}

async function datasetsFor (deps: RenderDeps, def: TemplateDefinition, body: RenderRequest,
  parameters: Record<string, unknown>, context: Record<string, unknown>): Promise<DatasetValues> {
  const data = body.data
  switch (data.kind) {
    case 'file': {
      const rows = deps.fileRows()
      if (rows === null) throw problem('VALIDATION_FAILED', 'data: no --data file was given to svc studio')
      return fromRows(deps, def, rows)
    }
    case 'rows': return fromRows(deps, def, data.rows)
    case 'generated': return generatedRows(def)
    case 'dataset': {
      const ctx = deps.context()
      if (ctx === null || deps.workspaceId === null) {
        throw problem('VALIDATION_FAILED', 'data: a dataset execution needs svc studio --workspace')
      }
      if (typeof data.environment !== 'string') {
        throw problem('VALIDATION_FAILED', 'data.environment: an environment key', { errors: { 'data.environment': ['is required'] } })
      }
      const stored = await ctx.repos.environments.get(deps.workspaceId, data.environment)
      const env = requireEnvironment(data.environment, stored)
      // The render's own read: the same policies (data-source guard, statement time limit) and
      // limits (rows, bytes, cell bytes) as a render of the API.
      const read = await ctx.dataSources.readAll(env, def, parameters, context, deps.config.render.maxRows)
      return read.datasets
    }
    default: throw problem('VALIDATION_FAILED', 'data.kind: must be file, rows, dataset or generated')
  }
}

export async function renderStudio (deps: RenderDeps, body: RenderRequest,
  signal: AbortSignal): Promise<RenderResponse> {
  const started = performance.now()
  const checked = validateText(body.templateText)
  if (checked.checked === null) {
    const errors: Record<string, string[]> = {}
    for (const e of checked.errors) (errors[e.path] ??= []).push(e.message)
    throw problem('TEMPLATE_INVALID', `${checked.errors.length} error(s) in the template`, { errors })
  }
  const def = checked.checked.definition
  const parameters = checkParameters(compileParameterCheck(def), body.parameters)
  const context = body.context as Record<string, unknown>
  if (body.dpi !== undefined && (!isDpi(body.dpi) || def.format !== 'label')) {
    throw problem('VALIDATION_FAILED', 'dpi: labels only, one of 152, 203, 300, 600', { errors: { dpi: ['is invalid'] } })
  }
  const input: RenderInput = {
    // Content-addressed: an edited template never hits a stale compiled entry in a worker.
    versionKey: `studio:${createHash('sha256').update(body.templateText).digest('hex')}`,
    definition: body.templateText,
    parameters,
    context,
    datasets: await datasetsFor(deps, def, body, parameters, context),
    limits: renderLimits(deps.config.render),
    labelDpi: body.dpi
  }
  const result = await deps.pool.render(input, { signal })
  if (!result.ok) throw engineProblem(result)
  const bytes = Buffer.from(result.bytes)
  const common = { pageCount: result.pageCount, labelCount: result.labelCount, warnings: result.warnings ?? [] }
  if (result.format === 'zpl') {
    const pngs = await deps.helpers.labelPngs(def, bytes.toString('utf8'), undefined, result.labelDpi)
    return { format: 'zpl', pngs: pngs.map((p) => p.toString('base64')), ...common, ms: performance.now() - started }
  }
  // The same XML the PDF embeds, built from the same input (einvoice rules passed in the render).
  const xml = isObject(def.document) && def.document.einvoice !== undefined ? einvoiceXml(input) : null
  return {
    format: 'pdf',
    pdf: bytes.toString('base64'),
    ...(xml === null ? {} : { xml }),
    ...common,
    ms: performance.now() - started
  }
}
