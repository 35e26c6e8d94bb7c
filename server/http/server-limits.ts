// What one connection or request may cost, from Config.http: Fastify's own options, the Node
// server options only its constructor takes, the connection cap and the deadline for a
// connection's first request, and how a connection closes after its last answer
// (graceful-close.ts). Protocol errors these limits raise, and the requests Node would answer
// itself without a problem document, are answered by client-errors.ts.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'
import type { Config } from '../config.js'
import { problem } from '../errors.js'
import { answerAndClose, clientErrorHandler, closingProblem } from './client-errors.js'
import { correlationIdFor } from './plugins/correlation.js'
import { lingerOnClose } from './graceful-close.js'

export function fastifyLimits (config: Config) {
  return {
    requestTimeout: config.http.requestTimeoutMs,
    connectionTimeout: config.http.connectionTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Counted by plugins/connection-reuse.ts instead: Node answers a request past its own cap
    // with a bare 503, not a problem document.
    maxRequestsPerSocket: 0,
    clientErrorHandler: clientErrorHandler(config.http.linger)
  }
}

/** Passed to https.createServer with the certificate (Fastify forwards that object). */
export function nodeServerLimits (config: Config): {
  headersTimeout: number
  connectionsCheckingInterval: number
  handshakeTimeout: number
  requireHostHeader: boolean
} {
  const shortest = Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs)
  // Node checks the two timeouts on this interval (default 30 s): a tenth of the shorter one,
  // so a timeout fires within ~10% of its value.
  return {
    headersTimeout: config.http.headersTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(shortest / 10))),
    // A TCP connection that never completes TLS held a connection slot for Node's default 120 s.
    handshakeTimeout: config.http.headersTimeoutMs,
    // Node answers a missing Host with a bare 400; plugins/connection-reuse.ts answers a problem.
    requireHostHeader: false
  }
}

/** A body announced larger than the body limit: it is refused (413) without being read. */
function tooLarge (req: IncomingMessage, bodyLimitBytes: number): boolean {
  const length = req.headers['content-length']
  return length !== undefined && !(Number(length) <= bodyLimitBytes)
}

/** A body chunked, or announced larger than the body limit: nothing bounds draining it. */
function unbounded (req: IncomingMessage, bodyLimitBytes: number): boolean {
  if (req.headers['content-length'] !== undefined) return tooLarge(req, bodyLimitBytes)
  return req.headers['transfer-encoding'] !== undefined
}

const FIRST_REQUEST = Symbol('svc.firstRequestDeadline')
interface ConnectionSocket extends Socket { [FIRST_REQUEST]?: NodeJS.Timeout }

/**
 * The connection cap, the first request's deadline, the close of a body nothing bounds (staged,
 * graceful-close.ts), no 100 Continue for a body announced too large, and problem answers to
 * CONNECT and to an Expect other than 100-continue.
 */
export function limitConnections (server: Server, config: Config): void {
  lingerOnClose(server, config.http.linger)
  // Beyond the cap Node closes new connections at once; established ones keep being served.
  server.maxConnections = config.http.maxConnections
  server.headersTimeout = config.http.headersTimeoutMs
  // Node's header timeout starts at a request's first byte: a connection that sends nothing
  // held its slot until the idle timeout (2 min). Its first request's headers are due within
  // SVC_HEADERS_TIMEOUT of the connection (after TLS); later ones within keep-alive's timeout.
  const connected = server instanceof TlsServer ? 'secureConnection' : 'connection'
  server.on(connected, (socket: ConnectionSocket) => {
    const deadline = setTimeout(() => socket.destroy(), config.http.headersTimeoutMs)
    deadline.unref()
    socket[FIRST_REQUEST] = deadline
  })
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as ConnectionSocket
    const deadline = socket[FIRST_REQUEST]
    if (deadline !== undefined) {
      clearTimeout(deadline)
      socket[FIRST_REQUEST] = undefined
    }
    if (!unbounded(req, config.bodyLimitBytes)) return
    // Answered before its body was read (a bad key, 413), Node would read and drop the rest of
    // the body, however long, to reuse the connection: it closes after the answer instead. A
    // body announced within the limit is drained (bounded), and its client reads the answer on
    // a live connection; so is a chunked body read to its end before the answer.
    res.setHeader('Connection', 'close')
    req.once('end', () => { if (!res.headersSent) res.removeHeader('Connection') })
  })
  // Requests Node would refuse on its own with an empty body (or, CONNECT, none at all).
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    answerAndClose(socket, problem('METHOD_NOT_ALLOWED', 'CONNECT is not served here'), correlationIdFor(req), config.http.linger)
  })
  // Node answers "Expect: 100-continue" with 100 Continue at once, and the client sends a body
  // announced too large only to be refused (413) while sending it. Such a request goes on
  // without 100 Continue: authentication, then the 413, come before any of the body is sent.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!tooLarge(req, config.bodyLimitBytes)) res.writeContinue()
    server.emit('request', req, res)
  })
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const p = problem('EXPECTATION_FAILED', 'Only "Expect: 100-continue" is supported')
    const { headers, body } = closingProblem(p, correlationIdFor(req))
    res.writeHead(p.status, headers)
    res.end(body)
  })
}
