// Which problems each operation can answer, by status, for the OpenAPI document (issue 37). The
// spec's lists (Part 4 per endpoint, Part 5 for keys, Part 7 for codes) plus what the
// implementation answers at the protocol level; never a code an operation cannot give.
import { PROBLEMS } from '../errors.js'
import type { ErrorCode } from '../errors.js'

export type OperationId =
  | 'render' | 'getJob' | 'downloadDocument' | 'listTemplates' | 'getTemplate' | 'executeDataset' | 'whoami'

interface OperationProblems {
  /** Needs an API key: the key's problems (401, 403, 429) apply (Part 5, Part 8). */
  keyed: boolean
  /** Takes a JSON body: 413 and 415 can answer it. */
  body: boolean
  /** The operation's own codes (Part 4 and Part 7), beyond the key's and the protocol's. */
  codes: readonly ErrorCode[]
}

export const OPERATION_PROBLEMS: Record<OperationId, OperationProblems> = {
  // Part 4, POST /v1/render; RATE_LIMITED also for a workspace over its queued-jobs or storage cap.
  render: {
    keyed: true,
    body: true,
    codes: [
      'VALIDATION_FAILED', 'PARAMETER_INVALID', 'ENVIRONMENT_NOT_ALLOWED', 'TEMPLATE_NOT_FOUND',
      'TEMPLATE_NOT_PUBLISHED', 'VERSION_NOT_FOUND', 'ENVIRONMENT_NOT_FOUND', 'TEMPLATE_DISABLED',
      'FORMAT_MISMATCH', 'RENDER_FAILED', 'RENDER_LIMIT_EXCEEDED', 'DATASET_FAILED',
      'DATA_SOURCE_UNAVAILABLE', 'RENDER_BUSY'
    ]
  },
  getJob: { keyed: true, body: false, codes: ['JOB_NOT_FOUND'] },
  downloadDocument: { keyed: false, body: false, codes: ['DOCUMENT_NOT_FOUND'] },
  // The query string is validated (limit, cursor).
  listTemplates: { keyed: true, body: false, codes: ['VALIDATION_FAILED'] },
  // Part 7's template conditions, in the order the service checks them.
  getTemplate: {
    keyed: true,
    body: false,
    codes: ['VALIDATION_FAILED', 'TEMPLATE_NOT_FOUND', 'TEMPLATE_NOT_PUBLISHED', 'TEMPLATE_DISABLED']
  },
  // Part 4 lists DATASET_NOT_FOUND, TEMPLATE_NOT_FOUND, DATASET_FAILED, DATA_SOURCE_UNAVAILABLE and
  // the key's errors; the body, the template's state, the environment and the parameters are
  // checked as for a render (Part 5 item 4 and Part 7's conditions), so their codes answer too.
  executeDataset: {
    keyed: true,
    body: true,
    codes: [
      'VALIDATION_FAILED', 'PARAMETER_INVALID', 'ENVIRONMENT_NOT_ALLOWED', 'TEMPLATE_NOT_FOUND',
      'TEMPLATE_NOT_PUBLISHED', 'DATASET_NOT_FOUND', 'ENVIRONMENT_NOT_FOUND', 'TEMPLATE_DISABLED',
      'DATASET_FAILED', 'DATA_SOURCE_UNAVAILABLE'
    ]
  },
  whoami: { keyed: true, body: false, codes: [] }
}

/** The key's problems (Part 5, Part 8): on every keyed operation. */
const KEY_CODES: readonly ErrorCode[] = [
  'API_KEY_INVALID', 'API_KEY_REVOKED', 'API_KEY_EXPIRED', 'SCOPE_MISSING', 'WORKSPACE_MISMATCH', 'RATE_LIMITED'
]
/** Protocol-level answers any request can get (malformed HTTP or URL, too slow, headers too
 *  large, an unsupported Expect, a crash, a server shutting down or out of connection turns). */
const ANY_REQUEST_CODES: readonly ErrorCode[] = [
  'BAD_REQUEST', 'VALIDATION_FAILED', 'REQUEST_TIMEOUT', 'EXPECTATION_FAILED', 'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'
]
const BODY_CODES: readonly ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']

/**
 * The shared responses (components.responses): one per status, each with the codes any
 * operation gets at that status. An operation whose codes at a status are exactly these refers
 * to the component; one with more describes its own response. NotFound and MethodNotAllowed
 * answer requests that match no operation (an unknown path, another method on a known one).
 */
/** One status's codes: never empty. */
export type StatusCodes = readonly [ErrorCode, ...ErrorCode[]]

export const SHARED_RESPONSES: Record<string, { status: number, codes: StatusCodes }> = {
  BadRequest: { status: 400, codes: ['BAD_REQUEST', 'VALIDATION_FAILED'] },
  Unauthorized: { status: 401, codes: ['API_KEY_INVALID', 'API_KEY_REVOKED', 'API_KEY_EXPIRED'] },
  Forbidden: { status: 403, codes: ['SCOPE_MISSING', 'WORKSPACE_MISMATCH'] },
  NotFound: { status: 404, codes: ['NOT_FOUND'] },
  MethodNotAllowed: { status: 405, codes: ['METHOD_NOT_ALLOWED'] },
  RequestTimeout: { status: 408, codes: ['REQUEST_TIMEOUT'] },
  PayloadTooLarge: { status: 413, codes: ['PAYLOAD_TOO_LARGE'] },
  UnsupportedMediaType: { status: 415, codes: ['UNSUPPORTED_MEDIA_TYPE'] },
  ExpectationFailed: { status: 417, codes: ['EXPECTATION_FAILED'] },
  TooManyRequests: { status: 429, codes: ['RATE_LIMITED'] },
  HeadersTooLarge: { status: 431, codes: ['HEADERS_TOO_LARGE'] },
  InternalError: { status: 500, codes: ['INTERNAL_ERROR'] },
  ServiceUnavailable: { status: 503, codes: ['SERVICE_UNAVAILABLE'] }
}

/** Every code an operation can answer, grouped by status (ascending), each list in catalogue order. */
export function problemsByStatus (id: OperationId): Map<number, StatusCodes> {
  const op = OPERATION_PROBLEMS[id]
  const all = new Set<ErrorCode>([
    ...op.codes, ...ANY_REQUEST_CODES, ...(op.keyed ? KEY_CODES : []), ...(op.body ? BODY_CODES : [])
  ])
  const byStatus = new Map<number, [ErrorCode, ...ErrorCode[]]>()
  for (const code of Object.keys(PROBLEMS) as ErrorCode[]) {
    if (!all.has(code)) continue
    const status = PROBLEMS[code].status
    const list = byStatus.get(status)
    if (list === undefined) byStatus.set(status, [code])
    else list.push(code)
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b))
}

/** The shared response with exactly these codes at this status, if there is one. */
export function sharedResponseFor (status: number, codes: readonly ErrorCode[]): string | undefined {
  const same = (a: readonly ErrorCode[]): boolean => a.length === codes.length && a.every((c) => codes.includes(c))
  return Object.entries(SHARED_RESPONSES).find(([, r]) => r.status === status && same(r.codes))?.[0]
}
