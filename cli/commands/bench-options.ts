// Flags of `svc bench` → BenchOptions. Every bad value is a UsageError (exit 2) naming the flag.
import { readFileSync } from 'node:fs'
import { parseDuration } from '../../server/util/duration.js'
import { UsageError } from '../io.js'
import { openLoopConnections } from '../bench/runner.js'
import type { BenchOptions } from '../bench/types.js'

export interface BenchFlags {
  url?: string
  key?: string
  template: string
  parameters?: string
  parametersFile?: string
  environment?: string
  format?: 'pdf' | 'zpl'
  async?: boolean
  connections?: string
  duration: string
  rate?: string
  warmup: string
  timeout: string
  jobTimeout: string
  ca?: string
  insecure?: boolean
  maxErrorRate: string
  abortAfter: string
  probe?: boolean
}

/** What the command resolved outside the flags (config, environment, the dev certificate). */
export interface BenchDefaults { url: string, key?: string, ca?: Buffer }

function duration (flag: string, text: string, min: number): number {
  const ms = parseDuration(text)
  if (ms === undefined || ms < min) {
    throw new UsageError(`${flag}: expected a duration like 500ms, ` +
    `30s or 5m${min > 0 ? '' : ' (0 allowed)'}, got "${text}"`)
  }
  return ms
}

function number (flag: string, text: string, ok: (n: number) => boolean, expected: string): number {
  const n = Number(text)
  if (text.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag}: expected ${expected}, got "${text}"`)
  return n
}

export function parseParameters (text: string, source: string): Array<Record<string, unknown>> {
  let value: unknown
  try { value = JSON.parse(text) } catch (err) { throw new UsageError(`${source}: not JSON (${(err as Error).message})`) }
  const list = Array.isArray(value) ? value : [value]
  if (list.length === 0 || !list.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))) {
    throw new UsageError(`${source}: expected a parameters object or a non-empty array of them`)
  }
  return list as Array<Record<string, unknown>>
}

function readText (flag: string, file: string): string {
  try { return readFileSync(file, 'utf8') } catch (err) { throw new UsageError(`${flag}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`) }
}

export function benchOptions (flags: BenchFlags, defaults: BenchDefaults): BenchOptions {
  const url = flags.url ?? defaults.url
  let parsed: URL
  try { parsed = new URL(url) } catch { throw new UsageError(`--url: not a URL: "${url}"`) }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError('--url: expected ' +
    `https://host:port, got "${url}"`)
  }
  if (flags.parameters !== undefined && flags.parametersFile !== undefined) {
    throw new UsageError('--parameters and --parameters-file exclude each other')
  }
  if (flags.ca !== undefined && flags.insecure === true) throw new UsageError('--ca and --insecure exclude each other')
  const parameters = flags.parameters !== undefined
    ? parseParameters(flags.parameters, '--parameters')
    : flags.parametersFile !== undefined ? parseParameters(readText('--parameters-file', flags.parametersFile), flags.parametersFile) : []
  const rate = flags.rate === undefined ? undefined : number('--rate', flags.rate, (n) => n > 0 && n <= 1_000_000, 'requests per second > 0')
  const connections = flags.connections === undefined
    ? (rate === undefined ? 32 : openLoopConnections(rate))
    : number('--connections', flags.connections, (n) => Number.isInteger(n) && n >= 1 && n <= 10_000, 'an integer from 1 to 10000')
  return {
    url,
    key: flags.key ?? defaults.key,
    template: flags.template,
    parameters,
    environment: flags.environment,
    format: flags.format,
    async: flags.async === true,
    connections,
    rate,
    durationMs: duration('--duration', flags.duration, 1),
    warmupMs: duration('--warmup', flags.warmup, 0),
    timeoutMs: duration('--timeout', flags.timeout, 1),
    jobTimeoutMs: duration('--job-timeout', flags.jobTimeout, 1),
    ca: flags.ca !== undefined ? Buffer.from(readText('--ca', flags.ca)) : flags.insecure === true || flags.url !== undefined ? undefined : defaults.ca,
    insecure: flags.insecure === true,
    maxErrorRate: number('--max-error-rate', flags.maxErrorRate, (n) => n >= 0 && n <= 1, 'a fraction from 0 to 1'),
    abortAfter: number('--abort-after', flags.abortAfter, (n) => Number.isInteger(n) && n >= 0, 'a whole number (0: never)')
  }
}
