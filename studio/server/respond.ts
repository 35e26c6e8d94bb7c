// Answers of the studio's API: JSON, RFC 9457 problems (the one catalogue, server/errors.ts),
// and the security headers on every one of them (security.ts).
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { isProblem, problem, type Problem } from '../../server/errors.js'
import { SECURITY_HEADERS } from './security.js'

export function send (res: ServerResponse, status: number, type: string, body: string | Buffer,
  headers: Record<string, string> = {}): void {
  if (res.headersSent) { res.end(); return }
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers, 'content-type': type, 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

export function sendJson (res: ServerResponse, value: unknown): void {
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify(value))
}

/** A thrown Problem as its document; anything else is a 500 INTERNAL_ERROR (logged by the caller). */
export function sendProblem (res: ServerResponse, err: unknown): void {
  const p: Problem = isProblem(err) ? err : problem('INTERNAL_ERROR', 'internal error')
  send(res, p.status, 'application/problem+json', JSON.stringify(p.toBody(randomUUID())), p.headers ?? {})
}

/** A refusal that tells nothing: no body hint of why (wrong token, unknown path). */
export function sendBareNotFound (res: ServerResponse): void {
  send(res, 404, 'text/plain; charset=utf-8', 'Not Found')
}
