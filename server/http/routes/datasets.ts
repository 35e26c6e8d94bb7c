// POST /v1/datasets/:template/:dataset/execute (spec 2.4, scope datasets.execute): one dataset of
// the current published version, read from an environment's data source, as JSON rows. The
// resolution order is the render's: template → dataset → environment → parameters. Every
// declared parameter is checked as for a render (same schema as GET /v1/templates publishes),
// even those this dataset's query does not use. The SQL never appears in an answer.
import type { FastifyInstance } from 'fastify'
import { problem } from '../../errors.js'
import { assertEnvironmentAllowed } from '../../services/api-keys.js'
import type { ApiDeps } from './index.js'

export const MAX_ROWS = 10_000
export const DEFAULT_ROWS = 1000

interface ExecuteBody { parameters?: Record<string, unknown>, environment?: string, maxRows?: number, context?: Record<string, unknown> }
interface ExecuteParams { template: string, dataset: string }

export const executeSchema = {
  tags: ['datasets'],
  summary: 'Execute one dataset of a published template and return its rows',
  params: {
    type: 'object',
    required: ['template', 'dataset'],
    properties: { template: { type: 'string', minLength: 1, maxLength: 64 }, dataset: { type: 'string', minLength: 1, maxLength: 64 } }
  },
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      parameters: { type: 'object', description: 'Parameter values by name, typed as the template declares' },
      environment: { type: 'string', minLength: 1, maxLength: 64, description: "Environment key; default: the key's default environment" },
      maxRows: { type: 'integer', minimum: 1, maximum: MAX_ROWS, default: DEFAULT_ROWS },
      context: { type: 'object', description: 'Caller context for :context.xxx placeholders (as in a render)' }
    }
  },
  response: {
    200: {
      type: 'object',
      required: ['template', 'version', 'dataset', 'environment', 'columns', 'rows', 'rowCount', 'truncated', 'elapsedMs'],
      properties: {
        template: { type: 'string' },
        version: { type: 'integer' },
        dataset: { type: 'string' },
        environment: { type: 'string' },
        columns: {
          type: 'array',
          items: { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string' } } }
        },
        rows: { type: 'array', items: { type: 'object', additionalProperties: true } },
        rowCount: { type: 'integer' },
        truncated: { type: 'boolean' },
        elapsedMs: { type: 'integer' }
      }
    },
    '4xx': { $ref: 'problem#' },
    '5xx': { $ref: 'problem#' }
  }
} as const

export function datasetsRoute (api: FastifyInstance, deps: ApiDeps): void {
  const ctx = deps.context
  api.post<{ Params: ExecuteParams, Body: ExecuteBody | undefined }>('/datasets/:template/:dataset/execute', {
    schema: executeSchema,
    config: { scope: 'datasets.execute' },
    // Every member is optional, so an absent body means "all defaults" rather than a 400.
    preValidation: async (request) => { if (request.body === undefined || request.body === null) request.body = {} }
  }, async (request) => {
    const auth = request.auth
    const body = request.body ?? {}
    const { template, dataset } = request.params
    const resolved = await ctx.services.templates.resolve(auth.workspaceId, template)
    if (resolved.definition.datasets?.some((d) => d.code === dataset) !== true) {
      throw problem('DATASET_NOT_FOUND', `Template "${template}" has no dataset "${dataset}"`)
    }
    const envKey = body.environment ?? auth.defaultEnvironment
    const env = await ctx.repos.environments.get(auth.workspaceId, envKey)
    if (env === undefined) throw problem('ENVIRONMENT_NOT_FOUND', `No environment "${envKey}" in this workspace`)
    assertEnvironmentAllowed(auth, env)
    const checked = resolved.checkParameters(body.parameters ?? {})
    if (!checked.ok) {
      const first = Object.entries(checked.errors)[0]
      throw problem('PARAMETER_INVALID', first === undefined ? 'Parameters are invalid' : `${first[0]}: ${first[1][0]}`, { errors: checked.errors })
    }
    const result = await ctx.dataSources.execute(env, resolved.definition, dataset, checked.values, body.context ?? {}, body.maxRows ?? DEFAULT_ROWS)
    return { template: resolved.code, version: resolved.version, dataset, environment: env.key, ...result }
  })
}
