// The one problem catalogue (RFC 9457). Every errorCode the service can answer, with its HTTP
// status and title, lives here; handlers throw `problem(code, detail)` and one error handler
// renders it. The CLI throws the same problems and prints them.

export const PROBLEMS = {
  // Part 7 of the spec
  VALIDATION_FAILED: { status: 400, title: 'Request validation failed' },
  PARAMETER_INVALID: { status: 400, title: 'Template parameter invalid' },
  API_KEY_INVALID: { status: 401, title: 'API key missing, malformed or unknown' },
  API_KEY_REVOKED: { status: 401, title: 'API key revoked' },
  API_KEY_EXPIRED: { status: 401, title: 'API key expired' },
  SCOPE_MISSING: { status: 403, title: 'API key lacks the scope of this endpoint' },
  ENVIRONMENT_NOT_ALLOWED: { status: 403, title: 'Environment not allowed for this key' },
  WORKSPACE_MISMATCH: { status: 403, title: 'Svc-Workspace names another workspace' },
  TEMPLATE_NOT_FOUND: { status: 404, title: 'Template not found' },
  TEMPLATE_NOT_PUBLISHED: { status: 404, title: 'Template has no published version' },
  VERSION_NOT_FOUND: { status: 404, title: 'Template version not found' },
  ENVIRONMENT_NOT_FOUND: { status: 404, title: 'Environment not found' },
  JOB_NOT_FOUND: { status: 404, title: 'Render job not found' },
  DOCUMENT_NOT_FOUND: { status: 404, title: 'Document not found' },
  DATASET_NOT_FOUND: { status: 404, title: 'Dataset not found' },
  TEMPLATE_DISABLED: { status: 409, title: 'Template disabled' },
  WEBHOOK_DISABLED: { status: 409, title: 'Webhook endpoint disabled' },
  FORMAT_MISMATCH: { status: 422, title: 'Requested format does not match the template' },
  RENDER_FAILED: { status: 422, title: 'Render failed' },
  RENDER_LIMIT_EXCEEDED: { status: 422, title: 'Render limit exceeded' },
  DATASET_FAILED: { status: 422, title: 'Dataset could not be read' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  DATA_SOURCE_UNAVAILABLE: { status: 503, title: 'Data source unavailable' },
  RENDER_BUSY: { status: 503, title: 'Render capacity saturated' },
  // Job-only codes (a failed job's error.code), never an HTTP answer of their own
  RENDER_TIMEOUT: { status: 504, title: 'Render timed out' },
  JOB_ABANDONED: { status: 500, title: 'Job abandoned after repeated failures' },
  // Not named by the spec; chosen for protocol-level errors (documented in docs/errors.md)
  BAD_REQUEST: { status: 400, title: 'Malformed HTTP request' },
  NOT_FOUND: { status: 404, title: 'No such route' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed on this route' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request not received in time' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported content type' },
  EXPECTATION_FAILED: { status: 417, title: 'Expectation not supported' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service not ready' },
  // Admin-side (CLI and future management API)
  WORKSPACE_NOT_FOUND: { status: 404, title: 'Workspace not found' },
  API_KEY_NOT_FOUND: { status: 404, title: 'API key not found' },
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook endpoint not found' },
  DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
  CONFLICT: { status: 409, title: 'Conflicts with an existing resource' },
  TEMPLATE_INVALID: { status: 422, title: 'Template file invalid' },
  WEBHOOK_URL_REFUSED: { status: 422, title: 'Webhook URL refused' },
  DATABASE_UNAVAILABLE: { status: 503, title: 'Service database not reachable' }
} as const satisfies Record<string, { status: number, title: string }>

export type ErrorCode = keyof typeof PROBLEMS

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  errorCode: ErrorCode
  correlationId: string
  errors?: Record<string, string[]>
}

/** An expected failure with a stable errorCode. Anything else that is thrown is a 500. */
export class Problem extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly title: string
  readonly errors: Record<string, string[]> | undefined
  readonly headers: Record<string, string> | undefined

  constructor (
    code: ErrorCode,
    detail: string,
    options: { errors?: Record<string, string[]>, headers?: Record<string, string> } = {}
  ) {
    super(detail)
    this.name = 'Problem'
    this.code = code
    this.status = PROBLEMS[code].status
    this.title = PROBLEMS[code].title
    this.errors = options.errors
    this.headers = options.headers
  }

  toBody (correlationId: string): ProblemBody {
    const body: ProblemBody = {
      type: 'about:blank',
      title: this.title,
      status: this.status,
      detail: this.message,
      errorCode: this.code,
      correlationId
    }
    if (this.errors !== undefined) body.errors = this.errors
    return body
  }
}

export function problem (
  code: ErrorCode,
  detail: string,
  options?: { errors?: Record<string, string[]>, headers?: Record<string, string> }
): Problem {
  return new Problem(code, detail, options)
}

export function isProblem (err: unknown): err is Problem {
  return err instanceof Problem
}

/** JSON Schema of a problem document, shared by every route's error responses and the OpenAPI document. */
export const problemSchema = {
  $id: 'problem',
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'errorCode', 'correlationId'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errorCode: { type: 'string', enum: Object.keys(PROBLEMS) },
    correlationId: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }
  }
} as const
