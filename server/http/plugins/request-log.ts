// One log line per request, at its end (Fastify's default is two: "incoming request" and
// "request completed"). The line is built here from fixed fields only — method, the URL with
// document tokens redacted, client address, status, time, correlation id and the key's visible
// prefix — so it goes through a child logger without path redaction: the logger's wildcard
// redaction of arbitrary objects cost ~28 µs CPU per line (measured), and nothing it looks for
// can be in this line. Every other line (handlers, errors) keeps the full redaction.
//
// A request's own logger (request.log: Fastify's child with the correlation id, and auth's child
// with the key's prefix) is made on first use (LazyLogger): most requests never log through it,
// and a pino child under this redaction costs a redaction pass over its bindings, measured at
// ~10% of the HTTP thread's allocations per sync render for the two children.
import { LogController } from 'fastify'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { Bindings, ChildLoggerOptions, Logger } from 'pino'
import { redactUrl } from '../../logger.js'
import type { AuthContext } from '../../auth/keys.js'

export interface RequestLine {
  correlationId: string
  keyPrefix?: string
  req: { method: string, url: string, remoteAddress: string }
  res: { statusCode: number }
  responseTime: number
}

/** The one line of a request, from what Fastify knows at its end (`remoteAddress`: read at its start). */
export function requestLine (request: FastifyRequest, reply: FastifyReply, remoteAddress: string): RequestLine {
  // request.auth is decorated null until the key is checked; its type omits null.
  const keyPrefix = (request.auth as AuthContext | null)?.prefix
  return {
    correlationId: request.id,
    ...(keyPrefix === undefined ? {} : { keyPrefix }),
    req: { method: request.method, url: redactUrl(request.url), remoteAddress },
    res: { statusCode: reply.statusCode },
    responseTime: reply.elapsedTime
  }
}

export class RequestLog extends LogController {
  private readonly lines: Logger
  // The client's address as the request began: once a connection is closed its socket has none.
  private readonly addresses = new WeakMap<FastifyRequest, string>()

  constructor (logger: Logger) {
    super({ requestIdLogLabel: 'correlationId' })
    // No paths: the default of a child is its parent's redaction; an empty list replaces it. The
    // parent's `req` serializer reads a Fastify request; this line's `req` is built already.
    this.lines = logger.child({}, { redact: { paths: [] }, serializers: { req: (req: RequestLine['req']) => req } })
  }

  /** The completed line carries the request: nothing is written at its start. */
  override incomingRequest (request: FastifyRequest): void {
    this.addresses.set(request, request.ip)
  }

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = requestLine(request, reply, this.addresses.get(request) ?? request.ip)
    // An error here (a failed response write) goes through the request's own, redacting logger.
    if (error !== null && error !== undefined) {
      reply.log.error({ ...line, err: error }, 'request errored')
      return
    }
    this.lines.info(line, 'request completed')
  }
}

// The arguments go on as they came (pino reads how many there are).

/** A child logger that becomes pino's child (same bindings, same order) when it first logs. */
export class LazyLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings

  constructor (parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent
    this.#bindings = bindings
  }

  /** The pino child, made now if it was not yet. */
  get made (): FastifyBaseLogger {
    if (this.#made !== undefined) return this.#made
    const parent = this.#parent instanceof LazyLogger ? this.#parent.made : this.#parent
    return (this.#made = parent.child(this.#bindings))
  }

  // The bindings do not change the level: reading it needs no child.
  get level (): string { return this.#made?.level ?? this.#parent.level }
  set level (level: string) { this.made.level = level }

  fatal (...args: unknown[]): void { this.made.fatal(...(args as [unknown])) }
  error (...args: unknown[]): void { this.made.error(...(args as [unknown])) }
  warn (...args: unknown[]): void { this.made.warn(...(args as [unknown])) }
  info (...args: unknown[]): void { this.made.info(...(args as [unknown])) }
  debug (...args: unknown[]): void { this.made.debug(...(args as [unknown])) }
  trace (...args: unknown[]): void { this.made.trace(...(args as [unknown])) }
  silent (): void {}

  child (bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return lazyRequestLogger(this, bindings, options)
  }
}

/**
 * Fastify's childLoggerFactory (and LazyLogger's child): a child made on first use. With
 * options (a route's own level or serializers) the child is made at once.
 */
export function lazyRequestLogger (
  parent: FastifyBaseLogger, bindings: Bindings, options?: ChildLoggerOptions
): FastifyBaseLogger {
  if (options === undefined || Object.keys(options).length === 0) return new LazyLogger(parent, bindings)
  return (parent instanceof LazyLogger ? parent.made : parent).child(bindings, options)
}
