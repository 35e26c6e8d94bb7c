// Errors Node's HTTP parser raises before a request exists (malformed request line or header,
// headers or URL too large, headers or body not received in time), and requests Node would
// answer itself without a body (CONNECT, an Expect other than 100-continue, server-limits.ts):
// the same problem document as everything else, then `Connection: close` and a graceful end
// (graceful-close.ts: FIN after the answer, the rest drained with a bound), so a keep-alive
// client reads an answer instead of ECONNRESET.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { problem } from '../errors.js'
import type { Problem } from '../errors.js'
import { correlationIdFor } from './plugins/correlation.js'
import { closeGracefully, isLingering } from './graceful-close.js'
import type { LingerBound } from './graceful-close.js'

const answered = Symbol('svc.clientErrorAnswered')

interface ServerSocket extends Socket {
  _httpMessage?: { headersSent?: boolean, req?: IncomingMessage } | null
  [answered]?: true
}

export function clientErrorProblem (err: NodeJS.ErrnoException): Problem {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return problem('HEADERS_TOO_LARGE', 'The request line or headers are larger than the server accepts')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem('REQUEST_TIMEOUT', 'The request was not received in time; send it again')
    default:
      return problem('BAD_REQUEST', 'The request is not well-formed HTTP/1.1')
  }
}

/** A problem answered outside Fastify: its headers (the connection ends after it) and body. */
export function closingProblem (p: Problem, correlationId: string): { headers: Record<string, string>, body: string } {
  const body = JSON.stringify(p.toBody(correlationId))
  return {
    headers: {
      'Content-Type': 'application/problem+json',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Correlation-ID': correlationId,
      Connection: 'close'
    },
    body
  }
}

/** The raw HTTP/1.1 answer (status line, headers, body) for a client error. */
export function clientErrorResponse (p: Problem, correlationId: string): string {
  const { headers, body } = closingProblem(p, correlationId)
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${p.status} ${STATUS_CODES[p.status] ?? 'Error'}\r\n${lines}\r\n${body}`
}

/** Fastify's `clientErrorHandler` (called on the instance, for its logger); closes within `bound`. */
export function clientErrorHandler (bound: LingerBound) {
  return function handleClientError (this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
    // A reset connection has nobody left to answer.
    const s = socket as ServerSocket
    // Answered once already (the parser reports every later chunk again), or closing after its
    // last answer (graceful-close.ts; a timeout of the body it drains): the close is under way.
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed || s[answered] === true ||
      isLingering(socket)) return
    // Not an HTTP error (a TLS handshake that failed or timed out, reported here too): the peer
    // cannot read an HTTP answer on this socket.
    if (!isHttpError(err)) {
      socket.destroy()
      return
    }
    const pending = s._httpMessage
    // A response already under way cannot be replaced without corrupting what the peer reads.
    if (!socket.writable || pending?.headersSent === true) {
      socket.destroy()
      return
    }
    // A request whose headers were read (a body too slow: 408) keeps the caller's correlation id.
    const pendingRequest = pending?.req
    const correlationId = pendingRequest === undefined ? randomUUID() : correlationIdFor(pendingRequest)
    const p = clientErrorProblem(err)
    this.log.info({ correlationId, errorCode: p.code, err: { code: err.code, message: err.message } }, 'client error')
    answerAndClose(socket, p, correlationId, bound)
  }
}

/** llhttp's parse errors (HPE_…) and Node's HTTP timeouts (ERR_HTTP_…). */
const isHttpError = (err: NodeJS.ErrnoException): boolean =>
  typeof err.code === 'string' && (err.code.startsWith('HPE_') || err.code.startsWith('ERR_HTTP_'))

/** Writes the problem as the socket's last bytes, then closes it gracefully (once per socket). */
export function answerAndClose (socket: Socket, p: Problem, correlationId: string, bound: LingerBound): void {
  const s = socket as ServerSocket
  if (socket.destroyed || s[answered] === true) return
  s[answered] = true
  socket.write(clientErrorResponse(p, correlationId))
  closeGracefully(socket, bound)
}
