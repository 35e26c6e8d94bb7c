import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import type { Db } from '../../../server/store/db.js'
import { createTemplatesService } from '../../../server/services/templates.js'
import type { TemplatesService } from '../../../server/services/templates.js'
import { createTemplateResolver } from '../../../server/render/resolver.js'
import type { RenderResolver } from '../../../server/render/resolution.js'
import type { Outbox } from '../../../server/webhooks/outbox.js'
import type { TemplatesRepo } from '../../../server/store/repos/templates.js'
import { createTemplatesRepo } from '../../../server/store/repos/templates.js'
import { Problem } from '../../../server/errors.js'
import { exampleAs, exampleText, newWorkspace, recordingOutbox } from './helpers.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('tplres') })
after(async () => { await database.drop() })

async function rejectsWith (p: Promise<unknown>, code: string, status?: number): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof Problem, String(err))
    assert.equal(err.code, code)
    if (status !== undefined) assert.equal(err.status, status)
    return true
  })
}

/** Publishing (the admin service) and the hot-path read (the resolver) over one repository. */
function templatesAndResolver (db: Db, repo: TemplatesRepo, outbox: Pick<Outbox, 'append'>): TemplatesService & RenderResolver {
  return { ...createTemplatesService(db, repo, outbox), ...createTemplateResolver(repo) }
}

/** The pool with every statement's SQL recorded (to count round trips). */
function counting (db: Db): { db: Db, sql: string[] } {
  const sql: string[] = []
  const proxy = new Proxy(db, {
    get (target, prop) {
      const v = Reflect.get(target, prop) as unknown
      if ((prop === 'execute' || prop === 'query') && typeof v === 'function') {
        return (...args: unknown[]) => {
          sql.push(String(args[0]))
          return (v as (...a: unknown[]) => unknown).apply(target, args)
        }
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    }
  })
  return { db: proxy, sql }
}

test('errors come in spec order: not found, not published, version not found, disabled', async () => {
  const db = database.db
  const svc = templatesAndResolver(db, createTemplatesRepo(db), recordingOutbox())
  const ws = await newWorkspace(db)
  await rejectsWith(svc.resolve(ws, 'nope'), 'TEMPLATE_NOT_FOUND', 404)
  // A template row without a version (e.g. created by a future management API before a publish).
  await db.execute('INSERT INTO templates (id, workspace_id, code, format) VALUES (?, ?, ?, ?)', [randomUUID(), ws, 'draft', 'document'])
  await rejectsWith(svc.resolve(ws, 'draft'), 'TEMPLATE_NOT_PUBLISHED', 404)
  await rejectsWith(svc.resolve(ws, 'draft', 1), 'TEMPLATE_NOT_PUBLISHED', 404)
  await db.execute('UPDATE templates SET disabled = 1 WHERE workspace_id = ? AND code = ?', [ws, 'draft'])
  await rejectsWith(svc.resolve(ws, 'draft', 1), 'TEMPLATE_NOT_PUBLISHED')

  await svc.publish(ws, exampleText('invoice'))
  await rejectsWith(svc.resolve(ws, 'invoice', 7), 'VERSION_NOT_FOUND', 404)
  await svc.setDisabled(ws, 'invoice', true)
  await rejectsWith(svc.resolve(ws, 'invoice', 7), 'VERSION_NOT_FOUND')
  await rejectsWith(svc.resolve(ws, 'invoice'), 'TEMPLATE_DISABLED', 409)
  await rejectsWith(svc.resolve(ws, 'invoice', 1), 'TEMPLATE_DISABLED', 409)
  await svc.setDisabled(ws, 'invoice', false)
  assert.equal((await svc.resolve(ws, 'invoice')).version, 1)
  await rejectsWith(svc.setDisabled(ws, 'nope', true), 'TEMPLATE_NOT_FOUND')

  // Another workspace's template is not found.
  const other = await newWorkspace(db)
  await rejectsWith(svc.resolve(other, 'invoice'), 'TEMPLATE_NOT_FOUND')
})

test('a resolved version carries the definition, a parameter check and the engine cache key', async () => {
  const db = database.db
  const svc = templatesAndResolver(db, createTemplatesRepo(db), recordingOutbox())
  const ws = await newWorkspace(db)
  const text = exampleText('shipping-label')
  const pub = await svc.publish(ws, text)
  const r = await svc.resolve(ws, 'shipping-label')
  assert.equal(r.templateId, pub.templateId)
  assert.equal(r.versionKey, `${pub.templateId}:1`)
  assert.equal(r.format, 'label')
  assert.equal(r.outputFormat, 'zpl')
  assert.equal(r.definitionJson, text)
  assert.equal(r.definition.label?.rows, 'parcels')
  assert.deepEqual(r.checkParameters({ batchId: 3 }), { ok: true, values: { batchId: 3 } })
  const bad = r.checkParameters({ batchId: 'x', extra: 1 })
  assert.equal(bad.ok, false)
  assert.deepEqual(Object.keys(bad.errors).sort(), ['batchId', 'extra'])
})

test('a publish is seen by the very next resolve, in this process and in another one', async () => {
  const ws = await newWorkspace(database.db)
  const here = templatesAndResolver(database.db, createTemplatesRepo(database.db), recordingOutbox())
  const elsewhere = templatesAndResolver(database.db, createTemplatesRepo(database.db), recordingOutbox())
  await here.publish(ws, exampleAs('invoice', 'live', (t) => { t.description = 'one' }))
  assert.equal((await here.resolve(ws, 'live')).definition.description, 'one')
  assert.equal((await here.resolve(ws, 'live')).version, 1)
  await elsewhere.publish(ws, exampleAs('invoice', 'live', (t) => { t.description = 'two' }))
  const now = await here.resolve(ws, 'live')
  assert.equal(now.version, 2)
  assert.equal(now.definition.description, 'two')
  // An explicit older version still resolves to its own definition.
  const old = await here.resolve(ws, 'live', 1)
  assert.equal(old.version, 1)
  assert.equal(old.definition.description, 'one')
  assert.equal((await here.resolve(ws, 'live')).version, 2)
  // Disabling elsewhere is seen at once too.
  await elsewhere.setDisabled(ws, 'live', true)
  await rejectsWith(here.resolve(ws, 'live'), 'TEMPLATE_DISABLED')
})

test('the hot path is one query, and the definition text travels only on a cache miss', async () => {
  const ws = await newWorkspace(database.db)
  const { db, sql } = counting(database.db)
  const svc = templatesAndResolver(db, createTemplatesRepo(db), recordingOutbox())
  await svc.publish(ws, exampleText('invoice'))
  sql.length = 0
  const first = await svc.resolve(ws, 'invoice')
  assert.equal(sql.length, 1, 'a miss is still one round trip')
  const second = await svc.resolve(ws, 'invoice')
  assert.equal(sql.length, 2, 'a hit is one round trip')
  assert.equal(second, first, 'the cached, immutable entry: no re-parse')
  assert.ok(Object.isFrozen(second))

  // The repository leaves the definition out when the caller already holds that version …
  const repo = createTemplatesRepo(database.db)
  const withText = await repo.resolve(ws, 'invoice', undefined)
  assert.equal(withText?.definition, exampleText('invoice'))
  const hinted = await repo.resolve(ws, 'invoice', undefined, { templateId: first.templateId, version: 1 })
  assert.equal(hinted?.definition, null)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(hinted?.version, 1)
  // … and sends it again as soon as another version is in force.
  await svc.publish(ws, exampleText('invoice'))
  const moved = await repo.resolve(ws, 'invoice', undefined, { templateId: first.templateId, version: 1 })
  assert.equal(moved?.version, 2)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.equal(moved?.definition, exampleText('invoice'))
  sql.length = 0
  assert.equal((await svc.resolve(ws, 'invoice')).version, 2)
  assert.equal(sql.length, 1, 'a new version is fetched in the same round trip')
})
