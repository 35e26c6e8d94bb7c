// X-Correlation-ID on every response (spec Part 7): the caller's value when sent and sane,
// otherwise a generated UUID. It is Fastify's request id, so every log line carries it.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'

const SANE = /^[A-Za-z0-9._:-]{1,128}$/

export function correlationIdFor (req: IncomingMessage | FastifyRequest): string {
  const sent = req.headers['x-correlation-id']
  return typeof sent === 'string' && SANE.test(sent) ? sent : randomUUID()
}

export function correlationPlugin (app: FastifyInstance): void {
  // A callback hook: it runs on every request, and an async hook costs a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Correlation-ID', request.id)
    done()
  })
}
