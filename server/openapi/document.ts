// What @fastify/swagger derives from the route schemas, finished into the published document:
// info, servers, tags, security, per-status problem responses, the spec's headers, typed binary
// bodies, named schemas for generated clients, the demo's examples and the webhooks (issue 37).
import { operationProblems, sharedResponses, HEADERS, PARAMETERS } from './responses.js'
import { OPERATION_PROBLEMS } from './problems.js'
import type { OperationId } from './problems.js'
import { SIGNATURE_DESCRIPTION, webhooksSection } from './webhooks.js'
import { OPERATION_EXTRAS, INFO, TAGS } from './operations.js'

type Json = Record<string, unknown>

/** The document's shape as far as this module reads it; the rest is plain JSON. */
export interface OpenApiDocument {
  openapi: string
  info: Json
  servers: Array<{ url: string, description?: string }>
  paths: Record<string, Record<string, Json>>
  components: Json & { schemas: Record<string, Json> }
  webhooks: Record<string, Json>
  [member: string]: unknown
}

const isOperationId = (id: unknown): id is OperationId =>
  typeof id === 'string' && Object.hasOwn(OPERATION_PROBLEMS, id)
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })

/** Moves a schema found at `holder[key]` into components.schemas under `name` (once). */
function hoist (schemas: Record<string, Json>, holder: Json | undefined, key: string, name: string): void {
  if (holder === undefined || holder[key] === undefined) throw new Error(`openapi: no schema to name ${name}`)
  const schema = { ...(holder[key] as Json) }
  delete schema.description // a response's description, not the schema's
  schemas[name] ??= schema
  holder[key] = ref(name)
}

/** `content['application/json']` of a request body or response, when it has one. */
const jsonOf = (o: unknown): Json | undefined =>
  ((o as { content?: Record<string, Json> } | undefined)?.content)?.['application/json']

export function finishDocument (raw: Json, serverUrl: string): OpenApiDocument {
  const doc = structuredClone(raw) as unknown as OpenApiDocument
  const schemas = doc.components.schemas
  const events = webhooksSection()
  doc.info = INFO
  doc.servers = [{ url: serverUrl, description: 'This service (its public URL)' }]
  doc.tags = TAGS
  doc.security = [{ bearer: [] }]
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const id = op.operationId
      if (!isOperationId(id)) throw new Error(`openapi: ${method.toUpperCase()} ${path} has no known operationId`)
      const extras = OPERATION_EXTRAS[id]
      const responses = op.responses as Record<string, Json>
      delete responses['4XX']
      delete responses['5XX']
      for (const [status, more] of Object.entries(extras.responses)) {
        const response = responses[status] // not every operation has every status
        if (response === undefined) throw new Error(`openapi: ${id} has no ${status} response`)
        response.headers = { 'X-Correlation-ID': { $ref: '#/components/headers/XCorrelationId' }, ...more.headers }
        if (more.binary !== undefined) {
          const binary = { schema: { type: 'string', format: 'binary' } }
          response.content = Object.fromEntries(more.binary.map((type) => [type, binary]))
        } else {
          const json = jsonOf(response)
          if (more.schema !== undefined) hoist(schemas, json, 'schema', more.schema)
          if (json !== undefined && more.example !== undefined) json.examples = more.example
        }
      }
      Object.assign(responses, operationProblems(id))
      const body = jsonOf(op.requestBody)
      if (extras.requestBody !== undefined) {
        hoist(schemas, body, 'schema', extras.requestBody.schema)
        ;(body as Json).examples = extras.requestBody.examples
        ;(op.requestBody as Json).required = extras.requestBody.required
      }
      const params = (op.parameters as Json[] | undefined) ?? []
      op.parameters = [
        ...params,
        { $ref: '#/components/parameters/XCorrelationId' },
        ...(OPERATION_PROBLEMS[id].keyed ? [{ $ref: '#/components/parameters/SvcWorkspace' }] : [])
      ]
    }
  }
  // The template page's items are the template record (the same schema object in templates.ts).
  const page = schemas.TemplatePage as { properties: { data: { items: Json } } } | undefined
  if (page !== undefined) page.properties.data.items = ref('TemplateRecord')
  Object.assign(schemas, events.schemas)
  doc.components.responses = sharedResponses()
  doc.components.headers = HEADERS
  doc.components.parameters = PARAMETERS
  doc.components.securitySchemes = {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'A workspace API key, `svc_live_<key id>_<secret>` or `svc_test_<key id>_<secret>`, as ' +
        '`Authorization: Bearer <key>`. Keep it server-side. A test key cannot use a production environment.'
    },
    svcSignature: { type: 'apiKey', in: 'header', name: 'Svc-Signature', description: SIGNATURE_DESCRIPTION }
  }
  doc.webhooks = events.webhooks
  return doc
}
