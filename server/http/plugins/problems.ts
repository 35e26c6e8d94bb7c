// The one error handler: every failure leaves as an RFC 9457 problem with an errorCode. Fastify's
// own errors (bad JSON, media type, body size, schema validation) are mapped here; anything
// unexpected is a 500 INTERNAL_ERROR with no internals, logged with the correlation id.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Problem, problem } from '../../errors.js'
import { FILE_NAME_RULE } from '../validation/file-name.js'

type ValidationItem = { instancePath?: string, message?: string, params?: Record<string, unknown>, keyword?: string }

/** Ajv errors → { member: [messages] } keyed by the member's path (`parameters.invoiceId`). */
export function validationErrors (items: ValidationItem[], context: string): Record<string, string[]> {
  // No prototype: member names are the caller's (`constructor`, `__proto__` …), never built-ins.
  const errors = Object.create(null) as Record<string, string[]>
  for (const item of items) {
    let path = (item.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
    if (item.keyword === 'required' && typeof item.params?.missingProperty === 'string') {
      path = path === '' ? item.params.missingProperty : `${path}.${item.params.missingProperty}`
    } else if (item.keyword === 'additionalProperties' && typeof item.params?.additionalProperty === 'string') {
      path = path === '' ? item.params.additionalProperty : `${path}.${item.params.additionalProperty}`
    }
    const key = path === '' ? context : path
    let message = item.message ?? 'is invalid'
    if (item.keyword === 'additionalProperties') message = 'is not a known member'
    if (item.keyword === 'format' && item.params?.format === 'file-name') message = FILE_NAME_RULE
    if (item.keyword === 'enum' && Array.isArray(item.params?.allowedValues)) message = `must be one of ${(item.params.allowedValues as unknown[]).join(', ')}`
    ;(errors[key] ??= []).push(message)
  }
  return errors
}

function toProblem (err: FastifyError): Problem {
  if (err instanceof Problem) return err
  if (err.validation !== undefined) {
    const where = err.validationContext ?? 'body'
    const errors = validationErrors(err.validation, where)
    // No entries when the validator gave no field errors
    const first = Object.entries(errors)[0]
    return problem('VALIDATION_FAILED', first === undefined ? 'The request is invalid' : `${first[0]}: ${first[1][0]}`, { errors })
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('PAYLOAD_TOO_LARGE', 'The request body is larger than the limit')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem('VALIDATION_FAILED', 'The JSON body is empty', { errors: { body: ['must be a JSON object'] } })
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem('VALIDATION_FAILED', 'Content-Length does not match the ' +
        'body', { errors: { body: ['Content-Length does not match the body'] } })
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return problem('VALIDATION_FAILED', 'The body is not valid JSON', { errors: { body: ['is not valid JSON'] } })
  }
  return problem('INTERNAL_ERROR', 'An unexpected error occurred; quote the correlation id to support')
}

export function sendProblem (reply: FastifyReply, request: FastifyRequest, p: Problem): FastifyReply {
  request.errorCode = p.code // for the request's metrics (metrics/http.ts)
  if (p.headers !== undefined) reply.headers(p.headers)
  if (p.code === 'API_KEY_INVALID') reply.header('WWW-Authenticate', 'Bearer')
  return reply.code(p.status).type('application/problem+json').send(p.toBody(request.id))
}

export function problemsPlugin (app: FastifyInstance, routes: () => Array<{ method: string, pattern: RegExp }>): void {
  app.decorateRequest('errorCode', '')
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const p = toProblem(err)
    if (p.code === 'INTERNAL_ERROR') request.log.error({ err }, 'unhandled error')
    else if (p.status >= 500) request.log.warn({ errorCode: p.code, detail: p.message }, 'request failed')
    return sendProblem(reply, request, p)
  })

  app.setNotFoundHandler((request, reply) => {
    const [path = ''] = request.url.split('?')
    const allowed = [...new Set(routes().filter((r) => r.pattern.test(path)).map((r) => r.method))]
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '))
      return sendProblem(reply, request, problem('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}`))
    }
    return sendProblem(reply, request, problem('NOT_FOUND', `No route ${request.method} ${path}`))
  })
}

/**
 * Errors Fastify raises before routing (a malformed URL such as `/templates/%zz`): the same
 * problem shape and correlation id as everything else, never Fastify's own JSON.
 */
export function frameworkErrorHandler (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Correlation-ID', request.id)
  const p = err.code === 'FST_ERR_BAD_URL'
    ? problem('VALIDATION_FAILED', 'The URL is malformed ' +
      '(bad percent-encoding)', { errors: { path: ['is not a valid URL path'] } })
    : problem('VALIDATION_FAILED', 'The request could not be routed', { errors: { path: ['could not be routed'] } })
  void sendProblem(reply, request, p)
}
