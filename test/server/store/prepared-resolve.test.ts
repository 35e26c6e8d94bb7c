// The sync render's first read (API key + template + environment, templates repo resolveForKey;
// once the resolution is held, the key and its workspace's state) is a prepared statement: on a
// one-connection service pool, MariaDB's own session counters show one execution per resolve and
// no new prepare after the first of each (mysql2's statement cache).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { loadConfig } from '../../../server/config.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { parseToken } from '../../../server/auth/keys.js'
import { createDb } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { workspaceWithKey } from '../../helpers/fixtures.js'
import { readExample } from '../../helpers/render-data.js'

const RESOLVES = 20
let tdb: TestDatabase
let db: Db
let ctx: Context

before(async () => {
  tdb = await createTestDatabase('prepared')
  db = createDb(tdb.url, { connectionLimit: 1 })
  ctx = await createContext(loadConfig({}, { SVC_HOME: '/nonexistent', SVC_MASTER_KEY: randomBytes(32).toString('hex') }), { db })
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await ctx?.close()
  await db.end().catch(() => {})
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
})

async function counters (): Promise<{ prepare: number, execute: number, query: number }> {
  const [rows] = await db.query<RowDataPacket[]>(
    "SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_execute', 'Com_select')")
  const get = (name: string): number => Number(rows.find((r) => r.Variable_name === name)?.Value)
  return { prepare: get('Com_stmt_prepare'), execute: get('Com_stmt_execute'), query: get('Com_select') }
}

test('the render\'s key + template + environment read is one prepared-statement execution per request', async () => {
  const { workspace, key } = await workspaceWithKey(ctx)
  await ctx.services.environments.create({ workspaceId: workspace.id, key: 'production' })
  await ctx.services.templates.publish(workspace.id, await readExample('invoice'), { note: 'test' })
  const presented = parseToken(key.key)
  const resolve = async (): Promise<void> => {
    const read = await ctx.resolver.resolveForKey(presented, 'invoice', undefined, 'production')
    assert.equal(read.key?.id, presented.keyId)
    const { resolved, environment } = await read.resolve()
    assert.equal(resolved.code, 'invoice')
    assert.equal(environment?.key, 'production')
  }
  await resolve() // prepares the full read on the pool's one connection
  await resolve() // the resolution is held now: prepares the key + workspace read (test/server/templates/held.test.ts)
  const before = await counters()
  for (let i = 0; i < RESOLVES; i++) await resolve()
  const after = await counters()
  assert.equal(after.execute - before.execute, RESOLVES, 'one execution per resolve')
  assert.equal(after.prepare - before.prepare, 0, 'no prepare after the first')
  // Com_select counts text-protocol and prepared SELECTs alike (SHOW STATUS is not one): no other read.
  assert.equal(after.query - before.query, RESOLVES, 'one SELECT per resolve, and it is the execution')
})

test('resolves that arrive together share statements: each gets its own key, template and environment', async () => {
  // Three workspaces, each with its key, template and environment; one has no such environment.
  const reads: Array<{ workspaceId: string, presented: ReturnType<typeof parseToken>, env: string, has: boolean }> = []
  for (const env of ['production', 'staging', undefined]) {
    const { workspace, key } = await workspaceWithKey(ctx)
    if (env !== undefined) await ctx.services.environments.create({ workspaceId: workspace.id, key: env })
    await ctx.services.templates.publish(workspace.id, await readExample('invoice'), { note: 'test' })
    reads.push({ workspaceId: workspace.id, presented: parseToken(key.key), env: env ?? 'production', has: env !== undefined })
  }
  const one = async (r: typeof reads[number], code: string): Promise<string> => {
    const read = await ctx.resolver.resolveForKey(r.presented, code, undefined, r.env)
    assert.equal(read.key?.workspaceId, r.workspaceId)
    try {
      const { resolved, environment } = await read.resolve()
      assert.equal(environment?.key, r.has ? r.env : undefined)
      return `${resolved.code}@${environment?.key ?? '-'}`
    } catch (err) {
      return (err as { code?: string }).code ?? 'error'
    }
  }
  const asked = Array.from({ length: 24 }, (_, i) => ({ r: reads[i % 3], code: i % 4 === 3 ? 'nope' : 'invoice' }))
  const expected = asked.map(({ r, code }) => code === 'nope' ? 'TEMPLATE_NOT_FOUND' : `invoice@${r?.has ? r.env : '-'}`)
  const before = await counters()
  const answers = await Promise.all(asked.map(async ({ r, code }) => await one(r!, code)))
  const after = await counters()
  assert.deepEqual(answers, expected)
  // The first goes alone; the others wait for it and go 8 at a time (the pool has one connection).
  assert.ok(after.execute - before.execute <= 1 + Math.ceil(23 / 8), `${after.execute - before.execute} executions for 24 resolves`)
})
