// Migration numbers only grow and are unique, and an applied migration is never renumbered
// (server/store/migrations/README.md): the files on disk are exactly the README's append-only
// ledger, whose numbers increase in the order the migrations landed. No database needed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { migrationsDir } from '../../../server/util/paths.js'

/** The name migrate.ts applies; any other .sql file would be skipped without a word. */
const MIGRATION = /^(\d{3})_[\w-]+\.sql$/

interface LedgerRow { number: string, file: string }

/** The ledger's rows `| 004 | `004_webhooks.sql` | … |`, in the README's order. */
function ledger (readme: string): LedgerRow[] {
  const [, section = ''] = readme.split(/^## Ledger$/m)
  assert.ok(section !== '', 'server/store/migrations/README.md has a "## Ledger" section')
  const rows: LedgerRow[] = []
  for (const line of section.split('\n')) {
    const [, number = '', file = ''] = /^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|/.exec(line) ?? []
    if (file !== '') rows.push({ number, file })
  }
  return rows
}

/** What is wrong with a folder's file names against its ledger; empty when all is well. */
function problems (files: string[], rows: LedgerRow[]): string[] {
  const found: string[] = []
  for (const f of files) {
    if (f.endsWith('.sql') && !MIGRATION.test(f)) found.push(`${f}: not NNN_name.sql, migrate would skip it`)
  }
  const migrations = files.filter((f) => MIGRATION.test(f)).sort()
  const byNumber = new Map<string, string[]>()
  for (const f of migrations) {
    const n = f.slice(0, 3)
    byNumber.set(n, [...(byNumber.get(n) ?? []), f])
  }
  for (const [n, same] of byNumber) if (same.length > 1) found.push(`number ${n} is used by ${same.join(', ')}`)
  const listed = rows.map((r) => r.file)
  for (const f of migrations) {
    if (!listed.includes(f)) found.push(`${f}: not in the ledger (append a row to server/store/migrations/README.md)`)
  }
  for (const r of rows) {
    if (!migrations.includes(r.file)) {
      found.push(`${r.file}: in the ledger but not on disk (renamed, renumbered, deleted?)`)
    }
    if (!r.file.startsWith(`${r.number}_`)) found.push(`${r.file}: the ledger gives it number ${r.number}`)
  }
  let before: LedgerRow | undefined
  for (const r of rows) {
    if (before !== undefined && Number(r.number) <= Number(before.number)) {
      found.push(`${r.file} comes after ${before.file} in the ledger: numbers only grow`)
    }
    before = r
  }
  return found
}

test('migration files are exactly the ledger, numbered uniquely and growing', async () => {
  const files = await readdir(migrationsDir)
  const rows = ledger(await readFile(join(migrationsDir, 'README.md'), 'utf8'))
  assert.ok(rows.length >= 13, `the ledger was read (${rows.length} rows)`)
  assert.deepEqual(problems(files, rows), [])
})

test('a duplicate, a lower new number, a renamed file and a malformed name are each found', () => {
  const rows: LedgerRow[] = [{ number: '001', file: '001_a.sql' }, { number: '004', file: '004_b.sql' }]
  assert.deepEqual(problems(['001_a.sql', '004_b.sql', 'README.md'], rows), [])
  assert.deepEqual(problems(['001_a.sql', '004_b.sql', '004_c.sql'], [...rows, { number: '004', file: '004_c.sql' }]), [
    'number 004 is used by 004_b.sql, 004_c.sql',
    '004_c.sql comes after 004_b.sql in the ledger: numbers only grow'
  ])
  assert.deepEqual(problems(['001_a.sql', '004_b.sql', '002_c.sql'], [...rows, { number: '002', file: '002_c.sql' }]), [
    '002_c.sql comes after 004_b.sql in the ledger: numbers only grow'
  ])
  assert.deepEqual(problems(['001_a.sql', '002_b.sql'], rows), [
    '002_b.sql: not in the ledger (append a row to server/store/migrations/README.md)',
    '004_b.sql: in the ledger but not on disk (renamed, renumbered, deleted?)'
  ])
  assert.deepEqual(problems(['001_a.sql', '004_b.sql', '18_c.sql'], rows), [
    '18_c.sql: not NNN_name.sql, migrate would skip it'
  ])
})
