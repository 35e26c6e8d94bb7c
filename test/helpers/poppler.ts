// Real PDF checks with Debian's poppler-utils.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtemp, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const run = promisify(execFile)

export async function pdfFacts (bytes: Buffer): Promise<{ pages: number, text: string, pageSize: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pdf-'))
  try {
    const file = join(dir, 'doc.pdf')
    await writeFile(file, bytes)
    const info = (await run('pdfinfo', [file])).stdout
    const text = (await run('pdftotext', ['-layout', file, '-'], { maxBuffer: 64 << 20 })).stdout
    const pages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1])
    const pageSize = /^Page size:\s+(.+)$/m.exec(info)?.[1] ?? ''
    return { pages, text, pageSize }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
