// The render pipeline: resolve → check → read data → engine. Every way of rendering goes
// through it: sync renders (sync.ts), jobs (server/jobs/), dataset runs (executeDataset), and the
// CLI's preview uses its checks (checks.ts). The outcome is recorded by the caller.
import type { RenderLimits, RenderSuccess } from '../../engine/types.js'
import { randomUUID } from 'node:crypto'
import type { RenderTaskOptions } from '../../pool/render-pool.js'
import { problem } from '../errors.js'
import type { AuthContext } from '../auth/keys.js'
import type { Resolution, ResolvedTemplate, TemplateResolver } from './resolution.js'
import { requireEnvironment } from '../services/environments.js'
import type { Environment, EnvironmentsRepo } from '../store/repos/environments.js'
import type { NewJob } from '../store/repos/jobs.js'
import type { DataSources, DatasetResult } from '../datasources/index.js'
import type { Config } from '../config.js'
import { checkFormat, checkParameters, environmentFor, labelDpiOf } from './checks.js'
import { engineProblem } from './outcome.js'
import { readAndRender } from './row-input.js'
import type { RowInputDeps } from './row-input.js'

export interface RenderBody {
  template: string
  version?: number
  environment?: string
  parameters?: Record<string, unknown>
  format?: 'pdf' | 'zpl'
  async?: boolean
  fileName?: string
  context?: Record<string, unknown>
}

/** A render request that passed every check: what the engine, a job row and the answer need. */
export interface Prepared {
  auth: AuthContext
  resolved: ResolvedTemplate
  env: Environment
  format: 'pdf' | 'zpl'
  parameters: Record<string, unknown>
  context: Record<string, unknown>
  fileName: string
}

/** The template (its problems still to raise) and the environment, as read for the request. */
export type Found = () => Promise<Resolution>
/** Template + environment reads shared by the jobs of one claim (they mostly render the same). */
export type ClaimBatch = Map<string, Promise<Resolution>>

export interface DatasetRequest {
  parameters?: Record<string, unknown>
  environment?: string
  maxRows?: number
  context?: Record<string, unknown>
}
export interface DatasetAnswer extends DatasetResult {
  template: string
  version: number
  dataset: string
  environment: string
}

export const DEFAULT_DATASET_ROWS = 1000

/** The stored form of a checked request: a job's row, and the subject of its run and event. */
export function jobOf (p: Prepared, correlationId: string): NewJob {
  return {
    id: randomUUID(),
    workspaceId: p.auth.workspaceId,
    apiKeyId: p.auth.keyId,
    apiKeyPrefix: p.auth.prefix,
    apiKeyName: p.auth.name,
    templateId: p.resolved.templateId,
    templateCode: p.resolved.code,
    version: p.resolved.version,
    environment: p.env.key,
    format: p.format,
    parameters: p.parameters,
    context: p.context,
    fileName: p.fileName,
    correlationId
  }
}

/** What the pipeline is built from (server/main.ts). */
export interface PipelineDeps extends RowInputDeps {
  config: Pick<Config, 'render'>
  templates: TemplateResolver
  environments: Pick<EnvironmentsRepo, 'get'>
  dataSources: Pick<DataSources, 'readAll' | 'execute'>
}
type Values = Record<string, unknown>

/** The limits every render gets from the operator's configuration (SVC_RENDER_MAX_*). */
export function renderLimits (render: Config['render']): RenderLimits {
  return { maxPages: render.maxPages, maxBytes: render.maxBytes, maxRows: render.maxRows, maxLabels: render.maxLabels }
}

export interface RenderPipeline {
  /** Template → environment → format → parameters (spec Part 4); the first failure is the answer. */
  check(auth: AuthContext, body: RenderBody, found: Found): Promise<Prepared>
  /** A stored request (a job): its template version and environment, read again at run time. */
  resolveStored(job: Pick<NewJob, 'workspaceId' | 'templateCode' | 'version' | 'environment'>, batch?: ClaimBatch): Promise<{
    resolved: ResolvedTemplate
    env: Environment
  }>
  /**
   * Datasets, then the engine in the pool (task: its lane and the workspace whose fair share it
   * takes); big datasets are fed to the engine as they are read (row-input.ts). Throws the
   * problem of the first failure.
   */
  produce(resolved: ResolvedTemplate, env: Environment, parameters: Values, context: Values,
    task: RenderTaskOptions): Promise<RenderSuccess>
  /**
   * One dataset of the version in force, as rows (spec 2.4). The render's order: template →
   * dataset → environment → parameters (every declared one, as for a render).
   */
  executeDataset(auth: AuthContext, target: {
    template: string
    dataset: string
  }, body: DatasetRequest): Promise<DatasetAnswer>
}

export function createRenderPipeline (deps: PipelineDeps): RenderPipeline {
  const limits = renderLimits(deps.config.render)

  return {
    async check (auth: AuthContext, body: RenderBody, found: Found): Promise<Prepared> {
      const envKey = body.environment ?? auth.defaultEnvironment
      const { resolved, environment } = await found()
      const env = environmentFor(auth, envKey, environment)
      checkFormat(resolved, body.format)
      // A bad context.labelDpi is the request's fault: refused before a job is queued.
      if (resolved.outputFormat === 'zpl') labelDpiOf(body.context ?? {}, env)
      return {
        auth,
        resolved,
        env,
        format: resolved.outputFormat,
        parameters: checkParameters(resolved.checkParameters, body.parameters),
        context: body.context ?? {},
        fileName: body.fileName ?? `${resolved.code}-v${resolved.version}.${resolved.outputFormat}`
      }
    },

    async resolveStored (
      job: Pick<NewJob, 'workspaceId' | 'templateCode' | 'version' | 'environment'>,
      batch?: ClaimBatch
    ): Promise<{ resolved: ResolvedTemplate, env: Environment }> {
      const key = `${job.workspaceId}\n${job.templateCode}\n${job.version}\n${job.environment}`
      let lookup = batch?.get(key)
      if (lookup === undefined) {
        lookup = deps.templates.resolveWithEnvironment(job.workspaceId, job.templateCode, job.version, job.environment)
        // A failed read is not shared with jobs that look later (a blip must not fail them all).
        if (batch !== undefined) {
          batch.set(key, lookup)
          lookup.catch(() => batch.delete(key))
        }
      }
      const { resolved, environment } = await lookup
      return { resolved, env: requireEnvironment(job.environment, environment) }
    },

    async produce (
      resolved: ResolvedTemplate,
      env: Environment,
      parameters: Values,
      context: Values,
      task: RenderTaskOptions
    ): Promise<RenderSuccess> {
      const result = await readAndRender(deps, resolved, env, { parameters, context }, limits, task)
      if (!result.ok) throw engineProblem(result)
      return result
    },

    async executeDataset (
      auth: AuthContext,
      target: { template: string, dataset: string },
      body: DatasetRequest
    ): Promise<DatasetAnswer> {
      const resolved = await deps.templates.resolve(auth.workspaceId, target.template)
      if (resolved.definition.datasets?.some((d) => d.code === target.dataset) !== true) {
        throw problem('DATASET_NOT_FOUND', `Template "${target.template}" has no dataset "${target.dataset}"`)
      }
      const envKey = body.environment ?? auth.defaultEnvironment
      const env = environmentFor(auth, envKey, await deps.environments.get(auth.workspaceId, envKey))
      const parameters = checkParameters(resolved.checkParameters, body.parameters)
      const rows = body.maxRows ?? DEFAULT_DATASET_ROWS
      const result = await deps.dataSources.execute(
        env,
        resolved.definition,
        target.dataset,
        parameters,
        body.context ?? {},
        rows
      )
      return {
        template: resolved.code,
        version: resolved.version,
        dataset: target.dataset,
        environment: env.key,
        ...result
      }
    }
  }
}
