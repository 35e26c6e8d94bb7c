// Request bodies are read as sent: no content coding is decoded (a gzip body would otherwise be
// handed to the JSON parser as is, or, decoded, escape SVC_BODY_LIMIT). A body with a
// Content-Encoding other than identity is refused with 415 UNSUPPORTED_MEDIA_TYPE and
// `Accept-Encoding: identity` (RFC 9110 §15.5.16), before it is read and after the key is checked.
import type { FastifyInstance } from 'fastify'
import type { IncomingHttpHeaders } from 'node:http'
import { problem } from '../../errors.js'

/** The codings other than identity that `headers` apply to a body, or none when there is no body. */
export function contentCodings (headers: IncomingHttpHeaders): string[] {
  const value = headers['content-encoding']
  const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0
  if (value === undefined || !hasBody) return []
  return value.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity')
}

export function contentEncodingPlugin (app: FastifyInstance): void {
  // A callback hook: it runs on every request, and an async hook costs a promise each. preParsing
  // runs after onRequest, where keys are checked (a deferred key: the route's error handler).
  app.addHook('preParsing', (request, _reply, _payload, done) => {
    const codings = contentCodings(request.headers)
    if (codings.length === 0) { done(); return }
    done(problem('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${codings.join(', ')} is not accepted: ` +
      'send the body uncompressed',
    { headers: { 'Accept-Encoding': 'identity' } }))
  })
}
