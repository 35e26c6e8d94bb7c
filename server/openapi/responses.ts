// The responses of the OpenAPI document: problems narrowed per status to the codes they can
// carry (problems.ts says which), the shared protocol answers, and the headers the spec promises.
import { STATUS_CODES } from 'node:http'
import { PROBLEMS } from '../errors.js'
import type { ErrorCode } from '../errors.js'
import { SHARED_RESPONSES, problemsByStatus, sharedResponseFor } from './problems.js'
import type { OperationId, StatusCodes } from './problems.js'

type Json = Record<string, unknown>
const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` })

export const HEADERS: Record<string, Json> = {
  XCorrelationId: {
    description: 'The request\'s correlation id: the X-Correlation-ID it sent (1–128 characters of ' +
      '`A-Z a-z 0-9 . _ : -`), else one the service made. The same id is in a problem\'s correlationId and ' +
      'in the run history.',
    required: true,
    schema: { type: 'string' }
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 }
  },
  WwwAuthenticate: {
    description: '`Bearer`, on a missing, malformed or unknown key (API_KEY_INVALID).',
    schema: { type: 'string', const: 'Bearer' }
  }
}

/** The components.parameters every operation refers to (Part 4: optional on all). */
export const PARAMETERS: Record<string, Json> = {
  XCorrelationId: {
    name: 'X-Correlation-ID',
    in: 'header',
    required: false,
    description: 'A correlation id of the caller\'s (1–128 characters of `A-Z a-z 0-9 . _ : -`); answers and ' +
      'the run history carry it. Otherwise the service makes one.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }
  },
  SvcWorkspace: {
    name: 'Svc-Workspace',
    in: 'header',
    required: false,
    description: 'The workspace the caller expects the key to belong to; another one is 403 WORKSPACE_MISMATCH.',
    schema: { type: 'string', format: 'uuid' }
  }
}

/** The problem document narrowed to the codes of one status: a generated client types them. */
export function narrowedProblem (status: number, codes: readonly ErrorCode[]): Json {
  return {
    allOf: [{ $ref: '#/components/schemas/Problem' }],
    type: 'object',
    required: ['status', 'errorCode'],
    properties: {
      status: { type: 'integer', const: status },
      errorCode: { type: 'string', enum: [...codes] }
    }
  }
}

function problemResponse (status: number, codes: StatusCodes): Json {
  const first = codes[0]
  const headers: Json = { 'X-Correlation-ID': headerRef('XCorrelationId') }
  if (status === 429) headers['Retry-After'] = { ...HEADERS.RetryAfter, required: true }
  if (status === 503) headers['Retry-After'] = headerRef('RetryAfter')
  if (status === 401) headers['WWW-Authenticate'] = headerRef('WwwAuthenticate')
  const title = STATUS_CODES[status] ?? 'Problem'
  return {
    description: `${title}: ${codes.map((c) => `${c} (${PROBLEMS[c].title.toLowerCase()})`).join('; ')}.`,
    headers,
    content: {
      'application/problem+json': {
        schema: narrowedProblem(status, codes),
        example: {
          type: 'about:blank',
          title: PROBLEMS[first].title,
          status,
          detail: PROBLEMS[first].title,
          errorCode: first,
          correlationId: 'order-4711'
        }
      }
    }
  }
}

/** components.responses: the shared answers. */
export function sharedResponses (): Record<string, Json> {
  return Object.fromEntries(Object.entries(SHARED_RESPONSES)
    .map(([name, r]) => [name, problemResponse(r.status, r.codes)]))
}

/** An operation's problem responses: a shared one where the codes are the same, else its own. */
export function operationProblems (id: OperationId): Record<string, Json> {
  const out: Record<string, Json> = {}
  for (const [status, codes] of problemsByStatus(id)) {
    const shared = sharedResponseFor(status, codes)
    out[String(status)] = shared !== undefined
      ? { $ref: `#/components/responses/${shared}` }
      : problemResponse(status, codes)
  }
  return out
}
