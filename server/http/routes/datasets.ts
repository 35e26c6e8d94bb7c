// POST /v1/datasets/:template/:dataset/execute (spec 2.4, scope datasets.execute): one dataset of
// the current published version, read from an environment's data source, as JSON rows. The
// resolution order is the render's: template → dataset → environment → parameters. Every
// declared parameter is checked as for a render (same schema as GET /v1/templates publishes),
// even those this dataset's query does not use. The SQL never appears in an answer.
import type { FastifyInstance } from 'fastify'
import type { SchemaTypes } from '../types.js'
import { DEFAULT_DATASET_ROWS } from '../../render/pipeline.js'
import type { RenderPipeline } from '../../render/pipeline.js'

export const MAX_ROWS = 10_000
export const DEFAULT_ROWS = DEFAULT_DATASET_ROWS

export const executeSchema = {
  operationId: 'executeDataset',
  tags: ['datasets'],
  summary: 'Execute one dataset of a template',
  description: 'Reads one dataset of the current published version of a template from an environment\'s ' +
    'data source, with the caller\'s parameter values, and answers its rows as JSON. The parameters are ' +
    'checked as for a render; the query itself is never sent nor shown.',
  params: {
    type: 'object',
    required: ['template', 'dataset'],
    properties: { template: { type: 'string', minLength: 1, maxLength: 64 }, dataset: { type: 'string', minLength: 1, maxLength: 64 } }
  },
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      parameters: {
        type: 'object',
        additionalProperties: true,
        description: 'Parameter values by name, typed as the template declares'
      },
      environment: { type: 'string', minLength: 1, maxLength: 64, description: "Environment key; default: the key's default environment" },
      maxRows: { type: 'integer', minimum: 1, maximum: MAX_ROWS, default: DEFAULT_ROWS },
      context: {
        type: 'object',
        additionalProperties: true,
        description: 'Caller context for :context.xxx placeholders (as in a render)'
      }
    }
  },
  response: {
    200: {
      description: 'The dataset\'s columns and rows',
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

export function datasetsRoute (api: FastifyInstance, deps: { pipeline: RenderPipeline }): void {
  api.withTypeProvider<SchemaTypes>().post(
    '/datasets/:template/:dataset/execute',
    {
      schema: executeSchema,
      config: { scope: 'datasets.execute' },
      // Every member is optional, so an absent body means "all defaults" rather than a 400.
      preValidation: async (request) => {
        if ((request.body as unknown) === undefined || (request.body as unknown) === null) {
          request.body = {} as typeof request.body
        }
      }
    },
    // An absent body is {} by now (preValidation above)
    async (request) => await deps.pipeline.executeDataset(request.auth, request.params, request.body)
  )
}
