// Output and failure conventions of every command: text for people, one JSON document with
// --json; exit 0 ok, 1 failure, 2 usage. Failures are one line (or a problem document), never a stack.
import { Problem } from '../server/errors.js'
import type { ProblemBody } from '../server/errors.js'
import { ConfigError } from '../server/config.js'
import { databaseProblem } from './db-errors.js'

export class UsageError extends Error {}

/** A command that printed its result and must still exit non-zero (e.g. a bench over its error budget). */
export class ExitCode extends Error {
  constructor (readonly code: number) { super(`exit ${code}`) }
}

export interface Io {
  json: boolean
  out (line: string): void
  err (line: string): void
}

export function createDefaultIo (json: boolean): Io {
  return { json, out: (line) => { process.stdout.write(line + '\n') }, err: (line) => { process.stderr.write(line + '\n') } }
}

/** Prints a result: the JSON value with --json, else the text lines from `text`. */
export function emit<T> (io: Io, value: T, text: (value: T) => string | string[]): void {
  if (io.json) { io.out(JSON.stringify(value, null, 2)); return }
  const lines = text(value)
  for (const line of Array.isArray(lines) ? lines : [lines]) io.out(line)
}

/** Fixed-width table for list commands. */
export function table<T extends object> (rows: T[], columns: Array<keyof T & string>): string[] {
  if (rows.length === 0) return ['(none)']
  const cell = (v: unknown): string => v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : JSON.stringify(v)
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)))
  const line = (values: string[]): string => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ').trimEnd()
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))]
}

/** A usage error as a problem document (--json): exit 2, errorCode VALIDATION_FAILED. */
export function usageProblem (message: string): ProblemBody {
  return new Problem('VALIDATION_FAILED', message.replace(/^error: /, '')).toBody('cli')
}

/** Maps any failure to its exit code and prints it (problem document with --json). */
export function fail (io: Io, err: unknown): number {
  if (err instanceof ExitCode) return err.code
  if (err instanceof UsageError || err instanceof ConfigError) {
    io.err(`error: ${err.message}`)
    if (io.json) io.out(JSON.stringify(usageProblem(err.message), null, 2))
    return 2
  }
  err = databaseProblem(err) ?? err
  if (err instanceof Problem) {
    if (io.json) {
      const body: ProblemBody = err.toBody('cli')
      io.out(JSON.stringify(body, null, 2))
    } else {
      io.err(`error: ${err.code}: ${err.message}`)
    }
    return err.code === 'VALIDATION_FAILED' ? 2 : 1
  }
  const message = err instanceof Error ? err.message : String(err)
  if (io.json) io.out(JSON.stringify({ type: 'about:blank', title: 'Command failed', status: 500, detail: message, errorCode: 'INTERNAL_ERROR', correlationId: 'cli' }, null, 2))
  else io.err(`error: ${message}`)
  return 1
}
