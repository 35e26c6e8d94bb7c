// Held render resolutions (render/resolver.ts): after a key's first render, the render's first
// read is the key's row and its workspace's state only, and the held template version and
// environment stand while the workspace's render revision (migration 014) is unchanged. Two
// contexts on one database play two server processes: every change made through one is seen
// by the very next render of the other.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { RowDataPacket } from 'mysql2/promise'
import { loadConfig } from '../../../server/config.js'
import { createContext } from '../../../server/context.js'
import type { Context } from '../../../server/context.js'
import { parseToken, verifyKey } from '../../../server/auth/keys.js'
import type { PresentedKey } from '../../../server/auth/keys.js'
import { createDb } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { Problem } from '../../../server/errors.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { workspaceWithKey } from '../../helpers/fixtures.js'
import { readExample } from '../../helpers/render-data.js'

let tdb: TestDatabase
const opened: Array<{ ctx: Context, db: Db }> = []
const masterKey = randomBytes(32).toString('hex')

/** A context (one "process") whose statements are recorded, to tell a held read from a full one. */
async function process_ (): Promise<{ ctx: Context, sql: string[] }> {
  const sql: string[] = []
  const db = createDb(tdb.url, { connectionLimit: 2 })
  const recorded = new Proxy(db, {
    get (target, prop) {
      const v = Reflect.get(target, prop) as unknown
      if ((prop === 'execute' || prop === 'query') && typeof v === 'function') {
        return (...args: unknown[]) => {
          const q = args[0] as string | { sql: string }
          sql.push(typeof q === 'string' ? q : q.sql)
          return (v as (...a: unknown[]) => unknown).apply(target, args)
        }
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    }
  })
  const ctx = await createContext(loadConfig({}, { SVC_HOME: '/nonexistent', SVC_MASTER_KEY: masterKey }), { db: recorded })
  opened.push({ ctx, db })
  return { ctx, sql }
}

before(async () => { tdb = await createTestDatabase('held') })
after(async () => {
  for (const { ctx, db } of opened) {
    await ctx.close()
    await db.end().catch(() => {})
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
})

/** What a render's first read says: the key's verdict, then the template and environment (or the problem). */
async function render (ctx: Context, key: PresentedKey, envKey = 'production'): Promise<string> {
  const read = await ctx.resolver.resolveForKey(key, 'invoice', undefined, envKey)
  try {
    verifyKey(key, read.key)
  } catch (err) {
    return (err as Problem).code
  }
  try {
    const { resolved, environment } = await read.resolve()
    const ds = environment?.dataSource === null ? 'no data source' : 'data source'
    return `v${resolved.version} ${environment?.key ?? '-'} ${ds} webhooks ${environment?.webhooksVersion ?? '-'}`
  } catch (err) {
    if (!(err instanceof Problem)) throw err
    return err.code
  }
}

const held = (sql: string[]): boolean => /FROM api_keys k LEFT JOIN workspaces w ON w\.id = k\.workspace_id WHERE k\.id IN/.test(sql.join('\n')) && !sql.some((q) => q.includes('templates t'))

test('a held resolution costs a key read; every change made through another process is seen by the next render', async () => {
  const a = await process_()
  const b = await process_()
  const { workspace, key } = await workspaceWithKey(b.ctx)
  const ws = workspace.id
  await b.ctx.services.environments.create({ workspaceId: ws, key: 'production', dataSourceUrl: 'mysql://reader:pw@203.0.113.7:3306/shop' })
  await b.ctx.services.templates.publish(ws, await readExample('invoice'))
  const presented = parseToken(key.key)

  assert.equal(await render(a.ctx, presented), 'v1 production data source webhooks 0')
  a.sql.length = 0
  assert.equal(await render(a.ctx, presented), 'v1 production data source webhooks 0')
  assert.ok(held(a.sql), `the second render reads the key and workspace only: ${a.sql.join('; ')}`)
  assert.equal(a.sql.length, 1)

  // A new version in force, a disable and an enable, a data source removed, a webhook change:
  // each through process B, each seen by A's very next render.
  await b.ctx.services.templates.publish(ws, await readExample('invoice'))
  assert.equal(await render(a.ctx, presented), 'v2 production data source webhooks 0')
  await b.ctx.services.templates.setDisabled(ws, 'invoice', true)
  assert.equal(await render(a.ctx, presented), 'TEMPLATE_DISABLED')
  await b.ctx.services.templates.setDisabled(ws, 'invoice', false)
  assert.equal(await render(a.ctx, presented), 'v2 production data source webhooks 0')
  await b.ctx.services.environments.setDataSource(ws, 'production', null)
  assert.equal(await render(a.ctx, presented), 'v2 production no data source webhooks 0')
  await b.ctx.repos.webhooks.bumpSubscriptionVersion(b.ctx.db, ws)
  a.sql.length = 0
  assert.equal(await render(a.ctx, presented), 'v2 production no data source webhooks 1')
  assert.ok(held(a.sql), 'the subscription version comes with the key: the resolution is still held')
  // A revoked key is refused on the held path: its row is read on every request.
  await b.ctx.services.apiKeys.revoke(ws, key.prefix)
  assert.equal(await render(a.ctx, presented), 'API_KEY_REVOKED')
})

/** A process whose key rendered the invoice once (its resolution is held from now on). */
type Process = Awaited<ReturnType<typeof process_>>
async function heldOnce (): Promise<{ a: Process, workspace: { id: string }, presented: PresentedKey }> {
  const a = await process_()
  const { workspace, key } = await workspaceWithKey(a.ctx)
  await a.ctx.services.environments.create({ workspaceId: workspace.id, key: 'production' })
  await a.ctx.services.templates.publish(workspace.id, await readExample('invoice'))
  const presented = parseToken(key.key)
  assert.equal(await render(a.ctx, presented), 'v1 production no data source webhooks 0')
  return { a, workspace, presented }
}

test('a row edited by hand is seen once the workspace\'s render revision is bumped (docs/architecture.md, Caches)', async () => {
  const { a, workspace, presented } = await heldOnce()
  await tdb.db.execute('UPDATE templates SET disabled = 1 WHERE workspace_id = ?', [workspace.id])
  // Without the bump the held resolution stands (for at most HELD_TTL_MS) …
  assert.equal(await render(a.ctx, presented), 'v1 production no data source webhooks 0')
  // … with it, the next render reads the rows again.
  await tdb.db.execute('UPDATE workspaces SET render_revision = render_revision + 1 WHERE id = ?', [workspace.id])
  assert.equal(await render(a.ctx, presented), 'TEMPLATE_DISABLED')
})

test('a key presented with a wrong secret never takes the held path, and does not unseat the right one', async () => {
  const { a, workspace, presented } = await heldOnce()
  const forged: PresentedKey = { ...presented, secretHash: randomBytes(32) }
  a.sql.length = 0
  assert.equal(await render(a.ctx, forged), 'API_KEY_INVALID')
  assert.ok(!held(a.sql), 'the forged key went the full read, whose template join is gated on the secret')
  const [rows] = await tdb.db.query<RowDataPacket[]>('SELECT render_revision FROM workspaces WHERE id = ?', [workspace.id])
  assert.equal(Number(rows[0]?.render_revision), 1, 'one publish, one bump; an environment insert needs none')
  a.sql.length = 0
  assert.equal(await render(a.ctx, presented), 'v1 production no data source webhooks 0')
  assert.ok(held(a.sql), 'the right key still takes the held path')
})
