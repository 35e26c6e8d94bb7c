// pino JSON logs. Secrets never reach a log line: the Authorization header, signatures and any
// member named like a secret are redacted wherever they appear.
import pino from 'pino'
import type { Logger } from 'pino'
import type { Config } from './config.js'

// pino's `*` matches one level only, so members named like a secret are listed down to four
// levels (`{ body: { dataSource: { password } } }` is three): deeper objects are not logged.
const SECRET_MEMBERS = ['authorization', 'password', 'secret']
const DEPTHS = ['*', '*.*', '*.*.*', '*.*.*.*']

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["svc-signature"]',
  'headers.authorization',
  ...DEPTHS.flatMap((prefix) => SECRET_MEMBERS.map((name) => `${prefix}.${name}`)),
  '*.apiKey.key',
  'key',
  'secret',
  'password'
]

/** A document link's token is a credential: request lines show the route, not the token. */
export function redactUrl (url: string): string {
  return url.replace(/\/documents\/[^/?#]+/, '/documents/[redacted]')
}

// Driver errors (mysql2) carry the statement (`sql`, values interpolated by query()) and a server
// message that may quote SQL or a bound value (`You have an error … near '…'`, `XPATH syntax
// error: '<value>'`): only the symbolic code, errno and SQLSTATE are kept. Any error with such
// members, at any depth of `cause`, is treated that way.
const SQL_MEMBERS = ['sql', 'sqlMessage', 'values', 'parameters', 'params']
const isDriverError = (e: Record<string, unknown>): boolean =>
  SQL_MEMBERS.some((m) => m in e) || (typeof e.code === 'string' && /^ER_/.test(e.code))

/** The error or one of its causes came from the driver (pino appends causes' messages to the message). */
function driverInChain (e: unknown, depth = 0): boolean {
  if (typeof e !== 'object' || e === null || depth > 5) return false
  return isDriverError(e as Record<string, unknown>) || driverInChain((e as { cause?: unknown }).cause, depth + 1)
}

/** A driver's code or message (a string, or an errno number); anything else reads as the fallback. */
const textOr = (v: unknown, fallback: string): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : fallback

function scrubError (original: unknown, out: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const own = typeof original === 'object' && original !== null ? original as Record<string, unknown> : {}
  if (driverInChain(original)) {
    const message = isDriverError(own)
      ? `${textOr(own.code, 'database error')} (driver message withheld: it may quote SQL or values)`
      : `${textOr(own.message, '')} (caused by a database error; its message is withheld)`
    out.message = message
    if (typeof out.stack === 'string') {
      out.stack = [message, ...out.stack.split('\n').filter((l) => /^\s+at /.test(l))].join('\n')
    }
  }
  for (const m of SQL_MEMBERS) delete out[m]
  if (depth < 5 && typeof out.cause === 'object' && out.cause !== null) {
    out.cause = scrubError(own.cause, { ...(out.cause as Record<string, unknown>) }, depth + 1)
  }
  return out
}

/** pino's error serializer, then SQL text, values and driver messages taken out. */
export function serializeError (err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown
  return typeof out === 'object' && out !== null ? scrubError(err, out as Record<string, unknown>) : out
}

// Fastify's request serializer, with the URL redacted (Fastify keeps a logger's own serializers).
const serializers = {
  err: serializeError,
  error: serializeError,
  req (req: { method?: string, url?: string, host?: string, ip?: string, socket?: { remotePort?: number } }) {
    return { method: req.method, url: redactUrl(req.url ?? ''), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }
  }
}

const LOG_BLOCK = 4096
const LOG_FLUSH_MS = 1000

export function createLogger (config: Pick<Config, 'logLevel' | 'logFile'>): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid }, serializers }
  if (config.logFile !== undefined) {
    // Lines are written in blocks of LOG_BLOCK bytes, and at least every LOG_FLUSH_MS: one write per
    // line handed a write to libuv's thread pool (and a thread wake-up) for every request. At exit
    // pino flushes what is left synchronously; a process killed with SIGKILL loses at most a block.
    return pino(options, pino.destination({
      dest: config.logFile,
      mkdir: true,
      sync: false,
      minLength: LOG_BLOCK,
      periodicFlush: LOG_FLUSH_MS
    }))
  }
  return pino(options)
}
