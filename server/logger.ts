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

export function createLogger (config: Pick<Config, 'logLevel' | 'logFile'>): Logger {
  const options = { level: config.logLevel, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } }
  if (config.logFile !== undefined) return pino(options, pino.destination({ dest: config.logFile, mkdir: true, sync: false }))
  return pino(options)
}
