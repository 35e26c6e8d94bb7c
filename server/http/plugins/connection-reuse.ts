// When a kept-alive connection may carry another request, decided per request (the body
// without a bound is server-limits.ts's):
// - the connection's last request (SVC_MAX_REQUESTS_PER_SOCKET) is answered with
//   `Connection: close`, and one pipelined past it with a 503 problem (Node's own cap answers a
//   bare 503);
// - an HTTP/1.1 request without Host is a 400 problem (Node's own check answers a bare 400).
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { problem } from '../../errors.js'

const SERVED = Symbol('svc.requestsServed')
interface CountedSocket extends Socket { [SERVED]?: number }

export function connectionReusePlugin (app: FastifyInstance, maxRequestsPerSocket: number): void {
  // A callback hook: it runs on every request, and an async hook costs a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw
    if (maxRequestsPerSocket > 0) {
      const socket = raw.socket as CountedSocket
      const served = (socket[SERVED] ?? 0) + 1
      socket[SERVED] = served
      if (served >= maxRequestsPerSocket) reply.header('Connection', 'close')
      if (served > maxRequestsPerSocket) {
        done(problem('SERVICE_UNAVAILABLE', 'This connection has served its last request; open a new one',
          { headers: { 'Retry-After': '0' } }))
        return
      }
    }
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1) {
      reply.header('Connection', 'close')
      done(problem('BAD_REQUEST', 'An HTTP/1.1 request needs a Host header'))
      return
    }
    done()
  })
}
