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

// Fastify's request serializer, with the URL redacted (Fastify keeps a logger's own serializers).
const serializers = {
  req (req: { method?: string, url?: string, host?: string, ip?: string, socket?: { remotePort?: number } }) {
    return { method: req.method, url: redactUrl(req.url ?? ''), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }
  }
}

export function createLogger (config: Pick<Config, 'logLevel' | 'logFile'>): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid }, serializers }
  if (config.logFile !== undefined) return pino(options, pino.destination({ dest: config.logFile, mkdir: true, sync: false }))
  return pino(options)
}
