// Per operation, what the route schemas cannot say: the spec's success headers (Part 4), binary
// bodies, names of the schemas generated clients see, and the demo's examples.
import type { OperationId } from './problems.js'
import * as ex from './examples.js'

type Json = Record<string, unknown>
const example = (summary: string, value: unknown): Json => ({ summary, value })

interface SuccessExtras {
  headers?: Record<string, Json>
  /** Media types of a binary body (replaces the route's application/json). */
  binary?: string[]
  /** Name of the body's schema in components.schemas. */
  schema?: string
  example?: Record<string, Json>
}
interface OperationExtras {
  responses: Record<string, SuccessExtras>
  requestBody?: { schema: string, required: boolean, examples: Record<string, Json> }
}

/** A response header: its description, schema, and whether every such answer has it. */
const h = (description: string, schema: Json, required = false): Json => ({ description, required, schema })
const int = { type: 'integer' }
const str = { type: 'string' }
const disposition = {
  description: '`attachment; filename="<file name>"`, with an RFC 5987 `filename*` for a non-ASCII name.',
  required: true,
  schema: str
}

/** The Part 4 headers of a synchronous render's document. */
const RENDER_HEADERS: Record<string, Json> = {
  'Content-Length': h('Size in bytes; absent when a big document is sent as it renders (chunked).', int),
  'Content-Disposition': disposition,
  'X-Template-Version': h('The template version rendered.', int, true),
  'X-Page-Count': h('Pages (PDF only).', int),
  'X-Label-Count': h('Labels (ZPL only).', int),
  'X-Document-Format': h('The document\'s format.', { type: 'string', enum: ['pdf', 'zpl'] }, true),
  'X-Environment': h('The environment whose data source was read.', str, true),
  'X-Run-ID': h('The run recorded in the workspace\'s run history.', { type: 'string', format: 'uuid' }, true)
}

export const OPERATION_EXTRAS: Record<OperationId, OperationExtras> = {
  render: {
    requestBody: {
      schema: 'RenderRequest',
      required: true,
      examples: {
        sync: example('The demo invoice, rendered synchronously', ex.RENDER_REQUEST),
        async: example('The same, as a render job', ex.RENDER_ASYNC_REQUEST)
      }
    },
    responses: {
      200: { headers: RENDER_HEADERS, binary: ['application/pdf', 'application/zpl'] },
      202: {
        headers: { Location: h('The job\'s statusUrl.', { type: 'string', format: 'uri' }, true) },
        schema: 'RenderJob',
        example: { queued: example('A queued job', ex.QUEUED_JOB) }
      }
    }
  },
  getJob: {
    responses: { 200: { schema: 'RenderJob', example: { succeeded: example('A succeeded job', ex.SUCCEEDED_JOB) } } }
  },
  downloadDocument: {
    responses: {
      200: {
        headers: { 'Content-Length': h('Size in bytes.', int, true), 'Content-Disposition': disposition },
        binary: ['application/pdf', 'application/zpl']
      }
    }
  },
  listTemplates: {
    responses: {
      200: { schema: 'TemplatePage', example: { demo: example('The demo workspace, first page', ex.TEMPLATE_PAGE) } }
    }
  },
  getTemplate: {
    responses: {
      200: { schema: 'TemplateRecord', example: { invoice: example('The demo invoice', ex.INVOICE_TEMPLATE) } }
    }
  },
  executeDataset: {
    // Every member has a default: an absent body is all defaults.
    requestBody: {
      schema: 'DatasetRequest',
      required: false,
      examples: { lines: example('The lines of demo invoice 2', ex.DATASET_REQUEST) }
    },
    responses: { 200: { schema: 'DatasetResult', example: { lines: example('Its one line', ex.DATASET_RESULT) } } }
  },
  whoami: {
    responses: { 200: { schema: 'ApiKeyInfo', example: { live: example('The demo\'s live key', ex.WHOAMI) } } }
  }
}

export const INFO: Json = {
  title: 'svc render API',
  version: '1.0.0',
  summary: 'Renders published templates into PDF documents and ZPL labels.',
  description: [
    'Renders the published templates of a workspace with data read from one of its environments, either',
    'synchronously (the document is the answer) or as a render job, announced by webhooks. Lists templates',
    'with a JSON Schema of their parameters, and executes single datasets as JSON rows; SQL is never sent',
    'nor shown.',
    '',
    'Every error is an RFC 9457 problem document (`application/problem+json`) whose `errorCode` is the',
    'stable value to branch on; each response below lists the codes its status can carry. Retry only 429',
    '(after `Retry-After`), 503 and network failures, with exponential backoff and jitter. Every answer',
    'carries `X-Correlation-ID`.'
  ].join('\n'),
  // package.json: "UNLICENSED" (private; all rights reserved): no licence document to link.
  license: { name: 'UNLICENSED (proprietary: all rights reserved)' }
}

export const TAGS: Json[] = [
  { name: 'render', description: 'Rendering documents and labels, and following render jobs.' },
  { name: 'documents', description: 'Stored documents of render jobs, behind signed short-lived links.' },
  { name: 'templates', description: 'The published templates of the workspace.' },
  { name: 'datasets', description: 'Datasets of a template, executed on their own.' },
  { name: 'keys', description: 'The calling API key.' },
  { name: 'events', description: 'Webhooks the service sends: signed HTTPS POSTs of an event envelope.' }
]
