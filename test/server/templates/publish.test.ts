import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import type { RowDataPacket } from 'mysql2/promise'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { createDb } from '../../../server/store/db.js'
import type { Db } from '../../../server/store/db.js'
import { createTemplatesService } from '../../../server/services/templates.js'
import { Problem } from '../../../server/errors.js'
import { createOutbox as realOutbox } from '../../../server/webhooks/outbox.js'
import { createRepos } from '../../../server/store/repos/index.js'
import { createTemplatesRepo } from '../../../server/store/repos/templates.js'
import { exampleAs, exampleText, newWorkspace, recordingOutbox } from './helpers.js'

let database: TestDatabase
before(async () => { database = await createTestDatabase('tplpub') })
after(async () => { await database.drop() })

async function rejectsWith (p: Promise<unknown>, code: string): Promise<Problem> {
  try { await p } catch (err) {
    assert.ok(err instanceof Problem, `expected a problem, got ${String(err)}`)
    assert.equal(err.code, code, err.message)
    return err
  }
  assert.fail(`expected ${code}`)
}

test('publishing twice gives versions 1 and 2 with previousVersion, stored definition and public view', async () => {
  const db = database.db
  const outbox = recordingOutbox()
  const svc = createTemplatesService(db, createTemplatesRepo(db), outbox)
  const ws = await newWorkspace(db)
  const text = exampleText('invoice')
  const v1 = await svc.publish(ws, text, { note: 'first', publishedBy: 'alice' })
  assert.deepEqual({ ...v1, templateId: undefined }, { templateId: undefined, code: 'invoice', version: 1, previousVersion: null, format: 'document' })
  const v2 = await svc.publish(ws, exampleAs('invoice', 'invoice', (t) => { t.description = 'Second edition' }))
  assert.equal(v2.templateId, v1.templateId)
  assert.equal(v2.version, 2)
  assert.equal(v2.previousVersion, 1)

  const [rows] = await db.query<RowDataPacket[]>('SELECT version, description, document_type, definition, public_view, note, published_by FROM template_versions WHERE template_id = ? ORDER BY version', [v1.templateId])
  assert.equal(rows.length, 2)
  assert.equal(rows[0]?.definition, text, 'the file as published, byte for byte')
  assert.equal(rows[0].note, 'first')
  assert.equal(rows[0].published_by, 'alice')
  assert.equal(rows[1]?.note, null)
  assert.equal(rows[1].description, 'Second edition')
  assert.equal(rows[0].document_type, 'invoice')
  const view = JSON.parse(rows[0].public_view)
  assert.deepEqual(view.parameters, [{ name: 'invoiceId', type: 'integer', required: true, defaultValue: null, description: 'Internal id of the invoice' }])
  assert.deepEqual(view.datasets.map((d: { code: string }) => d.code), ['header', 'lines', 'allowances'])
  assert.ok(!rows[0].public_view.includes('SELECT'), 'no SQL in the public view')
  const [[tpl]] = await db.query<RowDataPacket[]>('SELECT current_version, format, disabled FROM templates WHERE id = ?', [v1.templateId])
  assert.equal(tpl?.current_version, 2)
  assert.equal(tpl.format, 'document')
})

test('each publish appends template.published in the same transaction', async () => {
  const db = database.db
  const outbox = recordingOutbox()
  const svc = createTemplatesService(db, createTemplatesRepo(db), outbox)
  const ws = await newWorkspace(db)
  const v1 = await svc.publish(ws, exampleText('shipping-label'), { note: 'labels', publishedBy: 'cli' })
  const v2 = await svc.publish(ws, exampleText('shipping-label'))
  assert.deepEqual(outbox.events, [
    { workspaceId: ws, type: 'template.published', data: { templateId: v1.templateId, template: 'shipping-label', version: 1, previousVersion: null, format: 'label', note: 'labels', publishedBy: 'cli' } },
    { workspaceId: ws, type: 'template.published', data: { templateId: v1.templateId, template: 'shipping-label', version: 2, previousVersion: 1, format: 'label', note: null, publishedBy: null } }
  ])
  assert.equal(v2.version, 2)
  const [events] = await db.query<RowDataPacket[]>('SELECT type, payload FROM events WHERE workspace_id = ? ORDER BY seq', [ws])
  assert.deepEqual(events.map((e) => [e.type, JSON.parse(e.payload).version]), [['template.published', 1], ['template.published', 2]])

  // An outbox failure after its insert rolls back the version, the template row and the event.
  const failing = createTemplatesService(db, createTemplatesRepo(db), recordingOutbox({ fail: true }))
  await assert.rejects(failing.publish(ws, exampleAs('invoice', 'never-stored')), /outbox failed/)
  const [[count]] = await db.query<RowDataPacket[]>('SELECT (SELECT COUNT(*) FROM templates WHERE workspace_id = ? AND code = ?) AS t, (SELECT COUNT(*) FROM events WHERE workspace_id = ?) AS e', [ws, 'never-stored', ws])
  assert.equal(Number(count?.t), 0)
  assert.equal(Number(count?.e), 2)
})

test('with the real outbox, the events table holds the template.published envelope', async () => {
  const db = database.db
  const svc = createTemplatesService(db, createTemplatesRepo(db), realOutbox(createRepos(db)))
  const ws = await newWorkspace(db)
  const v1 = await svc.publish(ws, exampleText('invoice'), { note: 'n1', publishedBy: 'bob' })
  const v2 = await svc.publish(ws, exampleText('invoice'))
  const [events] = await db.query<RowDataPacket[]>('SELECT id, type, payload FROM events WHERE workspace_id = ? ORDER BY seq', [ws])
  assert.equal(events.length, 2)
  const envelopes = events.map((e) => JSON.parse(e.payload))
  assert.equal(envelopes[0].id, events[0]?.id)
  assert.equal(envelopes[0].type, 'template.published')
  assert.equal(envelopes[0].workspaceId, ws)
  assert.deepEqual(envelopes[0].data, { templateId: v1.templateId, template: 'invoice', version: 1, previousVersion: null, format: 'document', note: 'n1', publishedBy: 'bob' })
  assert.deepEqual(envelopes[1].data, { templateId: v2.templateId, template: 'invoice', version: 2, previousVersion: 1, format: 'document', note: null, publishedBy: null })
})

test('concurrent publishes from two connection pools get distinct, consecutive versions', async () => {
  const ws = await newWorkspace(database.db)
  const pools: Db[] = [createDb(database.url, { connectionLimit: 5 }), createDb(database.url, { connectionLimit: 5 })]
  try {
    const services = pools.map((p) => createTemplatesService(p, createTemplatesRepo(p), recordingOutbox()))
    // A brand-new code (both pools race to create the row) and then an existing one.
    for (const code of ['race', 'race']) {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => services[i % 2]!.publish(ws, exampleAs('invoice', code))))
      const versions = results.map((r) => r.version).sort((a, b) => a - b)
      const base = versions[0]! - 1
      assert.deepEqual(versions, Array.from({ length: 10 }, (_, i) => base + i + 1), 'distinct and gap-free')
      for (const r of results) assert.equal(r.previousVersion, r.version === 1 ? null : r.version - 1)
      assert.equal(new Set(results.map((r) => r.templateId)).size, 1, 'one template row')
    }
    const [[row]] = await database.db.query<RowDataPacket[]>('SELECT current_version, (SELECT COUNT(*) FROM template_versions v WHERE v.template_id = t.id) AS n FROM templates t WHERE workspace_id = ? AND code = ?', [ws, 'race'])
    assert.equal(row?.current_version, 20)
    assert.equal(Number(row.n), 20)
  } finally {
    await Promise.all(pools.map((p) => p.end()))
  }
})

test('an invalid file is refused with TEMPLATE_INVALID and errors keyed by JSON path; nothing is stored', async () => {
  const db = database.db
  const outbox = recordingOutbox()
  const svc = createTemplatesService(db, createTemplatesRepo(db), outbox)
  const ws = await newWorkspace(db)
  const bad = exampleAs('invoice', 'bad-one', (t) => {
    t.parameters[0].type = 'money'
    t.datasets[1].query = 'SELECT * FROM x WHERE id = :nope'
  })
  const err = await rejectsWith(svc.publish(ws, bad), 'TEMPLATE_INVALID')
  assert.equal(err.status, 422)
  assert.ok(err.errors?.['/parameters/0/type'] !== undefined, JSON.stringify(err.errors))
  const semantic = await rejectsWith(svc.publish(ws, exampleAs('invoice', 'bad-two', (t) => { t.datasets[1].query = 'SELECT * FROM x WHERE id = :nope' })), 'TEMPLATE_INVALID')
  assert.deepEqual(semantic.errors, { '/datasets/1/query': ['placeholder :nope is not a declared parameter'] })
  const notJson = await rejectsWith(svc.publish(ws, '{ "code": '), 'TEMPLATE_INVALID')
  assert.deepEqual(Object.keys(notJson.errors ?? {}), ['/'])
  assert.match(notJson.errors?.['/']?.[0] ?? '', /^is not valid JSON: line 1, column 11: unexpected end of file/)
  assert.match(notJson.message, /line 1, column 11/)
  const [[n]] = await db.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM templates WHERE workspace_id = ?', [ws])
  assert.equal(Number(n?.n), 0)
  assert.equal(outbox.events.length, 0)
})

test('a format change between versions is refused; unknown workspace and over-long note are refused', async () => {
  const db = database.db
  const svc = createTemplatesService(db, createTemplatesRepo(db), recordingOutbox())
  const ws = await newWorkspace(db)
  await svc.publish(ws, exampleAs('invoice', 'shape'))
  const label = exampleAs('shipping-label', 'shape')
  const err = await rejectsWith(svc.publish(ws, label), 'CONFLICT')
  assert.deepEqual(Object.keys(err.errors ?? {}), ['/format'])
  const [[row]] = await db.query<RowDataPacket[]>('SELECT current_version, format FROM templates WHERE workspace_id = ? AND code = ?', [ws, 'shape'])
  assert.deepEqual({ ...row }, { current_version: 1, format: 'document' })
  await rejectsWith(svc.publish('00000000-0000-0000-0000-000000000000', exampleText('invoice')), 'WORKSPACE_NOT_FOUND')
  await rejectsWith(svc.publish(ws, exampleText('invoice'), { note: 'x'.repeat(1001) }), 'VALIDATION_FAILED')
})
