// docs/errors.md lists exactly the problem catalogue: every errorCode of server/errors*.ts has a
// row there with its status, and the page names no code the catalogue lacks. Adding a code to one
// and not the other fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { projectRoot } from '../../server/util/paths.js'

interface Row { code: string, status: number, line: number }

/**
 * The code rows of the page's tables: `| 404 | `CODE` | …` (status first), or `| `CODE` | 504 | …`
 * (the job-only table). A code may have several rows (one per case); each must state its status.
 */
function documentedCodes (page: string): Row[] {
  const rows: Row[] = []
  page.split('\n').forEach((text, i) => {
    const m = /^\|\s*(\d{3})\s*\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(text) ??
      /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*(\d{3})\s*\|/.exec(text)
    if (m === null) return
    const [, a = '', b = ''] = m
    const statusFirst = /^\d/.test(a)
    rows.push({ code: statusFirst ? b : a, status: Number(statusFirst ? a : b), line: i + 1 })
  })
  return rows
}

function isProblemEntry (value: unknown): value is { status: number, title: string } {
  if (typeof value !== 'object' || value === null) return false
  const entry = value as Record<string, unknown>
  return typeof entry.status === 'number' && typeof entry.title === 'string'
}

/**
 * Every catalogue the server's errors*.ts modules export (an object whose every member is
 * `{ status, title }`), so a catalogue split over several files is read whole.
 */
async function catalogue (): Promise<Map<string, number>> {
  // The compiled server/ beside this compiled test (dist/test/docs → dist/server).
  const dir = new URL('../../server/', import.meta.url)
  const files = (await readdir(dir)).filter((f) => /^errors.*\.js$/.test(f))
  assert.ok(files.includes('errors.js'), `no errors.js in ${fileURLToPath(dir)}`)
  const codes = new Map<string, number>()
  for (const file of files) {
    const module = await import(new URL(file, dir).href) as Record<string, unknown>
    for (const exported of Object.values(module)) {
      if (typeof exported !== 'object' || exported === null) continue
      const entries = Object.entries(exported)
      if (entries.length === 0 || !entries.every(([, v]) => isProblemEntry(v))) continue
      for (const [code, entry] of entries) {
        if (isProblemEntry(entry)) codes.set(code, entry.status)
      }
    }
  }
  return codes
}

test('docs/errors.md lists exactly the errorCodes of the catalogue, each with its status', async () => {
  const codes = await catalogue()
  const rows = documentedCodes(await readFile(join(projectRoot, 'docs', 'errors.md'), 'utf8'))
  const documented = new Set(rows.map((r) => r.code))
  assert.deepEqual([...codes.keys()].filter((c) => !documented.has(c)).sort(), [],
    'codes of server/errors*.ts without a row in docs/errors.md')
  assert.deepEqual([...documented].filter((c) => !codes.has(c)).sort(), [],
    'codes in docs/errors.md that the catalogue does not have')
  const wrong = rows.filter((r) => codes.get(r.code) !== r.status)
    .map((r) => `docs/errors.md:${r.line} ${r.code} ${r.status}, catalogue ${String(codes.get(r.code))}`)
  assert.deepEqual(wrong, [], 'rows whose status is not the catalogue\'s')
  assert.ok(codes.size >= 40, `the catalogue was read (${codes.size} codes)`)
})

test('the row reader takes both table shapes and nothing else', () => {
  const page = [
    '| 404 | `TEMPLATE_NOT_FOUND` | No template. |',
    '| `RENDER_TIMEOUT` | 504 | Job only. |',
    '| Status | errorCode | Answered when |',
    '| `errorCode` | yes | the stable code |',
    'Prose naming `RENDER_BUSY` is not a row.'
  ].join('\n')
  assert.deepEqual(documentedCodes(page), [
    { code: 'TEMPLATE_NOT_FOUND', status: 404, line: 1 },
    { code: 'RENDER_TIMEOUT', status: 504, line: 2 }
  ])
})
