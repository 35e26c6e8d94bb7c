// `svc studio --template CODE --workspace ID` on the demo workspace (made by `svc demo` in a
// child process): a dataset render against the `development` environment returns real rows, a
// dataset error is a problem, and a publish from the studio is the next version on a real server
// (GET /v1/templates/{code}) with its template.published event delivered to a subscribed endpoint.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb } from '../../../server/store/db.js'
import { createTestDatabase, serverUrl, testDataSourceAllow, type TestDatabase } from '../../helpers/db.js'
import { pdfFacts } from '../../helpers/poppler.js'
import { startServer, type TestServer } from '../../helpers/server.js'
import { svc } from '../../cli/foundation-helpers.js'
import { makeCert, startReceiver, waitFor, type Cert, type Receiver } from '../../server/webhooks/helpers.js'
import { call, post, startStudio, type StudioProcess } from './helpers.js'

const prefix = `t${randomBytes(4).toString('hex')}_studio`
const masterKey = randomBytes(32).toString('hex')
let tdb: TestDatabase
let home: string
let env: Record<string, string>
let workspaceId: string
let apiKey: string
let s: StudioProcess

before(async () => {
  tdb = await createTestDatabase('studio')
  home = await mkdtemp(join(tmpdir(), 'svc-studio-ws-'))
  env = {
    SVC_HOME: home,
    SVC_DATABASE_URL: tdb.url,
    SVC_MASTER_KEY: masterKey,
    SVC_DATASOURCE_ALLOW: testDataSourceAllow(),
    SVC_LOG_LEVEL: 'silent'
  }
  const demo = await svc(['--json', 'demo', '--db-prefix', prefix], env, 120_000)
  assert.equal(demo.code, 0, demo.stderr + demo.stdout)
  const doc = demo.json()
  workspaceId = doc.workspace.id
  apiKey = doc.keys.live.key
  s = await startStudio(['--template', 'invoice', '--workspace', workspaceId], env)
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await s?.close()
  const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  for (const [e, short] of [['development', 'dev'], ['staging', 'stg'], ['production', 'prod']]) {
    await admin.query(`DROP DATABASE IF EXISTS \`${prefix}_${e}\``)
    await admin.query(`DROP USER IF EXISTS '${prefix}_${short}_ro'@'%'`)
  }
  await admin.end()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await tdb?.drop()
  await rm(home, { recursive: true, force: true })
})

test('the session: the version in force of the workspace\'s template and its environments', async () => {
  const session = (await call(s, 'GET', `/${s.token}/api/session`)).json()
  assert.deepEqual(session.source, { kind: 'workspace', workspaceId, code: 'invoice', version: 1 })
  assert.equal(JSON.parse(session.templateText).code, 'invoice')
  assert.deepEqual([...session.environments].sort(), ['development', 'production', 'staging'])
  assert.equal(session.dataFile, null)
  assert.equal(session.rows, null)
})

test('render with a dataset execution of the development environment: the real rows', async () => {
  // The truth, read from the environment's own database.
  const admin = createDb(`${serverUrl()}/${prefix}_development`, { connectionLimit: 1 })
  let expected: { number: string, name: string, description: string }
  try {
    const [rows] = await admin.query(`SELECT i.number, c.name, (SELECT l.description FROM invoice_lines l
      WHERE l.invoice_id = i.id ORDER BY l.line_no LIMIT 1) AS description
      FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.id = 2`) as unknown as [Array<typeof expected>]
    expected = rows[0] as typeof expected
  } finally { await admin.end() }
  const session = (await call(s, 'GET', `/${s.token}/api/session`)).json()
  const r = await post(s, 'render', {
    templateText: session.templateText,
    data: { kind: 'dataset', environment: 'development' },
    parameters: { invoiceId: 2 },
    context: {}
  })
  assert.equal(r.status, 200, r.text())
  const text = (await pdfFacts(Buffer.from(r.json().pdf, 'base64'))).text
  for (const word of [expected.number, expected.name, expected.description]) assert.ok(text.includes(word), `${word} in ${text}`)
})

test('dataset errors are problems: an unknown environment, a query the database refuses', async () => {
  const session = (await call(s, 'GET', `/${s.token}/api/session`)).json()
  const noEnv = await post(s, 'render', {
    templateText: session.templateText, data: { kind: 'dataset', environment: 'nope' }, parameters: { invoiceId: 2 }, context: {}
  })
  assert.equal(noEnv.status, 404)
  assert.equal(noEnv.json().errorCode, 'ENVIRONMENT_NOT_FOUND')
  const badQuery = session.templateText.replace('l.sku,', 'l.no_such_column AS sku,')
  assert.notEqual(badQuery, session.templateText)
  const failed = await post(s, 'render', {
    templateText: badQuery, data: { kind: 'dataset', environment: 'development' }, parameters: { invoiceId: 2 }, context: {}
  })
  assert.equal(failed.status, 422, failed.text())
  assert.match(String(failed.headers['content-type']), /^application\/problem\+json/)
  assert.equal(failed.json().errorCode, 'DATASET_FAILED')
})

test('publish from the studio: the next version on a real server, template.published delivered', async () => {
  let cert: Cert | undefined
  let receiver: Receiver | undefined
  let server: TestServer | undefined
  try {
    cert = await makeCert()
    receiver = await startReceiver(cert)
    server = await startServer(tdb.url, {
      SVC_MASTER_KEY: masterKey,
      SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
      SVC_WEBHOOK_CA_FILE: cert.certFile,
      SVC_WEBHOOK_POLL: '100ms'
    }, home)
    await server.context.services.webhooks.create({ workspaceId, url: receiver.url, events: ['template.published'] })
    const session = (await call(s, 'GET', `/${s.token}/api/session`)).json()
    const edited = session.templateText.replace('"Bill to"', '"Billed to (studio)"')
    const r = await post(s, 'publish', { templateText: edited, note: 'from the studio' })
    assert.equal(r.status, 200, r.text())
    assert.deepEqual(r.json(), { code: 'invoice', version: 2, previousVersion: 1 })

    const got = await server.fetch('GET', '/api/v1/templates/invoice', { headers: { authorization: `Bearer ${apiKey}` } })
    assert.equal(got.status, 200, got.text())
    assert.equal(got.json().version, 2)
    const rx = receiver
    // The demo's own publish of version 1 may be delivered too (its event was not yet fanned out when
    // the subscription was made, as no server ran): look for the studio's.
    const event = await waitFor('template.published', () =>
      rx.received.find((x) => x.json?.type === 'template.published' && x.json.data?.version === 2))
    assert.equal(event.json.workspaceId, workspaceId)
    assert.equal(event.json.data.template, 'invoice')
    assert.equal(event.json.data.version, 2)
    assert.equal(event.json.data.previousVersion, 1)
    assert.equal(event.json.data.note, 'from the studio')
    // The server renders the published version.
    const pdf = await server.fetch('POST', '/api/v1/render', {
      headers: { authorization: `Bearer ${apiKey}` },
      body: { template: 'invoice', parameters: { invoiceId: 1 } }
    })
    assert.equal(pdf.status, 200)
    assert.ok((await pdfFacts(pdf.body)).text.includes('Billed to (studio)'))
    // Save is for files: a workspace template is published, not written anywhere.
    const save = await post(s, 'save', { templateText: edited })
    assert.equal(save.status, 400)
  } finally {
    await server?.close()
    await receiver?.close()
    if (cert !== undefined) await rm(cert.dir, { recursive: true, force: true })
  }
})
