// The external tools the e-invoice tests run: ../shared/einvoice/validate (many files, one JVM
// run), ../shared/pdfa/preflight (a JVM per file), poppler's pdftotext and pdfdetach, qpdf.
import { execFile } from 'node:child_process'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..')
export const VALIDATE = resolve(repoRoot, '../shared/einvoice/validate')
export const PREFLIGHT = resolve(repoRoot, '../shared/pdfa/preflight')
const run = promisify(execFile)

// The JVMs of validate and preflight are short-lived: C2 compilation and the parallel collector's
// threads cost more CPU than they save. C1 only and the serial collector (read by the `java`
// launcher) gave the same results (the validate JSON of the 211 files identical) for about half
// the CPU: validate over 211 files 14.1 → 7.8 s user+sys, preflight 0.58 → 0.40 s per file.
const JVM_ENV = { ...process.env, JDK_JAVA_OPTIONS: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' }

export interface ProfileResult { profile: string, xsdErrors: unknown[], errors: unknown[], warnings: unknown[] }
export interface FileResult { file: string, profiles: ProfileResult[] }

/** One validate run over every file; its exit status is 1 when any file has errors. */
export async function validate (profile: string, files: string[]): Promise<FileResult[]> {
  let stdout: string
  try {
    stdout = (await run(VALIDATE, ['--profile', profile, '--json', ...files], {
      timeout: 240_000,
      maxBuffer: 64 << 20,
      env: JVM_ENV
    })).stdout
  } catch (err) {
    const e = err as { stdout?: string, stderr?: string }
    if (e.stdout === undefined || e.stdout === '') throw new Error(`validate failed: ${e.stderr ?? String(err)}`)
    stdout = e.stdout
  }
  return (JSON.parse(stdout) as { results: FileResult[] }).results
}

/** Preflight's exit status and output for one file. */
export async function preflight (file: string): Promise<{ code: number, out: string }> {
  try {
    const { stdout } = await run(PREFLIGHT, ['--part', '3', file], { timeout: 120_000, env: JVM_ENV })
    return { code: 0, out: stdout }
  } catch (err) {
    const e = err as { code?: number, stdout?: string, stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }
  }
}

export async function pdftotext (file: string): Promise<string> {
  return (await run('pdftotext', ['-layout', file, '-'], { maxBuffer: 64 << 20 })).stdout
}

/** The embedded file named `name`, as pdfdetach extracts it (one run: -savefile finds it by name). */
export async function detach (file: string, name: string, out: string): Promise<void> {
  try {
    await run('pdfdetach', ['-savefile', name, '-o', out, file])
  } catch (err) {
    const list = await run('pdfdetach', ['-list', file]).then((r) => r.stdout, () => '')
    throw new Error(`${file}: no embedded ${name} in ${JSON.stringify(list)} (${String(err)})`)
  }
}

export interface QpdfObject { value?: unknown, stream?: { dict: Record<string, unknown>, data?: string } }

/** qpdf's objects by `obj:N 0 R`. */
export async function qpdfJson (file: string): Promise<Map<string, QpdfObject>> {
  const args = ['--json', '--json-stream-data=inline', '--decode-level=generalized', file]
  const { stdout } = await run('qpdf', args, { maxBuffer: 64 << 20 })
  const doc = JSON.parse(stdout) as { qpdf: [unknown, Record<string, QpdfObject>] }
  return new Map(Object.entries(doc.qpdf[1]))
}

/** Runs `f` over `items`, `n` at a time. */
export async function pool<T, R> (items: T[], n: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker))
  return out
}
