// GET /v1/templates and GET /v1/templates/:code (spec 2.3, scope templates.read): published,
// active templates with their parameters, parameter JSON Schema and datasets, never the SQL.
// Paging (not fixed by the spec): `?limit=` 1..100 (default 50), `?cursor=` opaque; ordered by code.
import type { FastifyInstance } from 'fastify'
import type { SchemaTypes } from '../types.js'
import type { TemplatesService } from '../../services/templates.js'

export const templateRecord = {
  type: 'object',
  required: ['code', 'description', 'documentType', 'format', 'version', 'updatedAt', 'parameters', 'parameterSchema', 'datasets'],
  additionalProperties: false,
  properties: {
    code: { type: 'string' },
    description: { type: 'string' },
    documentType: { type: 'string' },
    format: { type: 'string', enum: ['document', 'label'] },
    version: { type: 'integer' },
    updatedAt: { type: 'string', format: 'date-time' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'required', 'defaultValue', 'description'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string' },
          required: { type: 'boolean' },
          // any JSON value or null
          defaultValue: {},
          description: { type: 'string' }
        }
      }
    },
    // A JSON Schema (draft 2020-12) of its own: passed through as it was built at publish time.
    parameterSchema: { type: 'object', additionalProperties: true },
    datasets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'description', 'cardinality', 'fields'],
        properties: {
          code: { type: 'string' },
          description: { type: 'string' },
          cardinality: { type: 'string' },
          fields: {
            type: 'array',
            items: { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string' } } }
          }
        }
      }
    }
  }
} as const

export const listSchema = {
  operationId: 'listTemplates',
  tags: ['templates'],
  summary: 'List the published templates',
  description: 'The published, active templates of the key\'s workspace, ordered by code, a page at a time: ' +
    'pass nextCursor as cursor for the next page. Disabled templates and templates without a published ' +
    'version are left out.',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      // Query strings are text and the app's Ajv does not coerce: an integer 1..100 spelled as digits.
      limit: {
        type: 'string',
        pattern: '^(?:[1-9][0-9]?|100)$',
        default: '50',
        description: 'Page size, an integer from 1 to 100 (default 50)'
      },
      cursor: { type: 'string', maxLength: 200 }
    }
  },
  response: {
    200: {
      description: 'A page of template records',
      type: 'object',
      required: ['data', 'nextCursor'],
      properties: {
        data: { type: 'array', items: templateRecord },
        nextCursor: {
          type: ['string', 'null'],
          description: 'Pass as ?cursor= for the next page; null on the last page'
        }
      }
    },
    '4xx': { $ref: 'problem#' }
  }
} as const

const getSchema = {
  operationId: 'getTemplate',
  tags: ['templates'],
  summary: 'Read one published template',
  description: 'One template record: its parameters with a JSON Schema of them, and its datasets with their ' +
    'fields. The SQL of a dataset is never shown.',
  params: { type: 'object', required: ['code'], properties: { code: { type: 'string', maxLength: 64 } } },
  response: { 200: { ...templateRecord, description: 'The template record' }, '4xx': { $ref: 'problem#' } }
} as const

export function templatesRoutes (api: FastifyInstance, deps: { templates: TemplatesService }): void {
  const templates = deps.templates
  const typed = api.withTypeProvider<SchemaTypes>()
  typed.get('/templates', { schema: listSchema, config: { scope: 'templates.read' } }, async (request) => {
    // limit is optional in the query string, whatever the schema type says
    const limit = (request.query.limit as string | undefined) ?? '50'
    return await templates.list(request.auth.workspaceId, { limit: Number(limit), cursor: request.query.cursor })
  })
  typed.get('/templates/:code', { schema: getSchema, config: { scope: 'templates.read' } }, async (request) => {
    return await templates.get(request.auth.workspaceId, request.params.code)
  })
}
