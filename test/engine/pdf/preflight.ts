// Apache PDFBox Preflight (../shared/pdfa/preflight, beside the clone) on rendered bytes: a JVM
// per file (1-2 s), so callers validate their files concurrently.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..')
export const PREFLIGHT = resolve(repoRoot, '../shared/pdfa/preflight')
const run = promisify(execFile)

/** Preflight's verdict: exit status and what it printed. */
export async function preflight (bytes: Uint8Array, part: number): Promise<{ code: number, out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pdfa-'))
  try {
    const file = join(dir, 'doc.pdf')
    await writeFile(file, bytes)
    try {
      const { stdout } = await run(PREFLIGHT, ['--part', String(part), file], { timeout: 60_000 })
      return { code: 0, out: stdout }
    } catch (err) {
      const e = err as { code?: number, stdout?: string, stderr?: string }
      return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
