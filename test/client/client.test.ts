// The client against the real service: HTTPS with the self-signed certificate as a private CA,
// MariaDB, the render pool, the examples published. Imported through the package's own export
// (`svc/client`), as an API user would.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { PassThrough } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JobTimeoutError, ProblemError, SvcClient } from 'svc/client'
import type { ClientErrorCode, ClientOptions, RenderRequest } from 'svc/client'
import { renderFixture } from '../helpers/render-data.js'
import { pdfFacts } from '../helpers/poppler.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let svc: SvcClient
let dir: string
const clients: SvcClient[] = []

function client (options: Partial<ClientOptions> = {}): SvcClient {
  const c = new SvcClient({ baseUrl: fx.server.url, apiKey: fx.ws.key.key, tls: { ca: fx.server.ca }, ...options })
  clients.push(c)
  return c
}

before(async () => {
  fx = await renderFixture('client')
  dir = await mkdtemp(join(tmpdir(), 'svc-client-'))
  svc = client()
  // An environment whose data source refuses connections: the service answers 503.
  await fx.server.context.services.environments.create({ workspaceId: fx.ws.workspace.id, key: 'down', dataSourceUrl: 'mysql://u:p@127.0.0.1:1/nothing' })
})
after(async () => {
  for (const c of clients) await c.close()
  await fx.close()
  await rm(dir, { recursive: true, force: true })
})

test('render(): the PDF with the Part 4 headers as typed fields', async () => {
  const doc = await svc.render({ template: 'invoice', parameters: { invoiceId: 1 }, fileName: 'Rechnung-ä.pdf' }, { correlationId: 'client-sync-1' })
  assert.equal(doc.contentType, 'application/pdf')
  assert.equal(doc.format, 'pdf')
  assert.equal(doc.version, 1)
  assert.equal(doc.environment, 'production')
  assert.equal(doc.fileName, 'Rechnung-ä.pdf')
  assert.equal(doc.correlationId, 'client-sync-1')
  assert.match(doc.runId, /^[0-9a-f-]{36}$/)
  assert.equal(doc.labelCount, null)
  assert.equal(doc.pageCount, (await pdfFacts(doc.body)).pages)
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks at runtime what the type claims
  assert.ok((doc.pageCount ?? 0) >= 1)
})

test('render(): a label answers labelCount and ZPL', async () => {
  const doc = await svc.render({ template: 'shipping-label', parameters: { batchId: 7 }, environment: 'staging' })
  assert.equal(doc.format, 'zpl')
  assert.equal(doc.environment, 'staging')
  assert.equal(doc.pageCount, null)
  assert.match(doc.body.toString('latin1'), /^\^XA/)
  assert.equal(doc.labelCount, 3) // batch 7: two parcels, one of them with quantity 2
})

test('renderAsync() + waitForJob() + downloadDocument() to a file and to a stream', async () => {
  const job = await svc.renderAsync({ template: 'invoice', parameters: { invoiceId: 2 } })
  assert.equal(job.status, 'queued')
  const polled: string[] = []
  const done = await svc.waitForJob(job, {
    initialIntervalMs: 50,
    timeoutMs: 60_000,
    onPoll: (j) => polled.push(j.status)
  })
  assert.equal(done.status, 'succeeded', JSON.stringify(done))
  assert.ok(polled.length >= 1)
  assert.equal(typeof done.documentUrl, 'string')
  const file = join(dir, 'async.pdf')
  const written = await svc.downloadDocument(done.documentUrl as string, file)
  const bytes = await readFile(file)
  assert.equal(written.bytes, bytes.length)
  assert.equal(bytes.length, done.outputBytes)
  assert.equal(written.contentType, 'application/pdf')
  assert.equal((await pdfFacts(bytes)).pages, done.pageCount)
  const sink = new PassThrough()
  const chunks: Buffer[] = []
  sink.on('data', (c: Buffer) => chunks.push(c))
  const streamed = await svc.downloadDocument(done.documentUrl as string, sink)
  assert.deepEqual(Buffer.concat(chunks), bytes)
  assert.equal(streamed.bytes, bytes.length)
})

test('waitForJob() returns a failed job (not thrown) with its error code', async () => {
  const job = await svc.renderAsync({ template: 'invoice', parameters: { invoiceId: 2 }, environment: 'down' })
  const done = await svc.waitForJob(job.jobId, { initialIntervalMs: 50, timeoutMs: 60_000 })
  assert.equal(done.status, 'failed')
  assert.equal(done.error?.code, 'DATA_SOURCE_UNAVAILABLE')
})

test('listTemplates() follows the cursor; getTemplate(); executeDataset()', async () => {
  const all = await svc.listTemplates({ pageSize: 1 })
  assert.deepEqual(all.map((t) => t.code), ['invoice', 'sales-report', 'shipping-label'])
  const invoice = await svc.getTemplate('invoice')
  assert.deepEqual(invoice.parameters.map((p) => p.name), ['invoiceId'])
  const rows = await svc.executeDataset('invoice', 'lines', { parameters: { invoiceId: 1 }, maxRows: 2 })
  assert.equal(rows.dataset, 'lines')
  assert.equal(rows.rowCount, rows.rows.length)
  assert.ok(rows.rowCount <= 2)
})

test('every error path answers a ProblemError with the catalogue errorCode', async () => {
  const ctx = fx.server.context
  const ws = fx.ws.workspace.id
  const mk = async (mode: 'live' | 'test', scopes: Array<'render' | 'templates.read'>, expiresAt: Date | null = null): Promise<string> =>
    (await ctx.services.apiKeys.create({ workspaceId: ws, name: `k-${randomUUID()}`, mode, scopes, expiresAt })).key
  const revoked = await mk('live', ['render'])
  await ctx.services.apiKeys.revoke(ws, revoked.split('_').slice(0, 3).join('_'))
  const expired = await mk('live', ['render'], new Date(Date.now() - 60_000))
  const readOnly = await mk('live', ['templates.read'])
  const testKey = await mk('test', ['render'])
  const other = await ctx.services.workspaces.create('Other')
  await ctx.services.templates.publish(ws, { ...JSON.parse(await readFile('examples/templates/invoice.json', 'utf8')), code: 'off' }, {})
  await ctx.services.templates.setDisabled(ws, 'off', true)
  const render =
    (r: RenderRequest, o: Partial<ClientOptions> = {}) =>
      async () =>
        await client({ retry: { maxAttempts: 1 }, ...o }).render(r)
  const invoice = { template: 'invoice', parameters: { invoiceId: 1 } }
  const cases: Array<[ClientErrorCode, number, () => Promise<unknown>]> = [
    ['TEMPLATE_NOT_FOUND', 404, render({ template: 'INVOICE', parameters: { invoiceId: 1 } })],
    ['PARAMETER_INVALID', 400, render({ template: 'invoice', parameters: { invoiceId: 'one' } })],
    ['VALIDATION_FAILED', 400, render({ template: 'invoice', format: 'docx' } as unknown as RenderRequest)],
    ['API_KEY_INVALID', 401, render(invoice, { apiKey: 'svc_live_nothing_here' })],
    ['API_KEY_REVOKED', 401, render(invoice, { apiKey: revoked })],
    ['API_KEY_EXPIRED', 401, render(invoice, { apiKey: expired })],
    ['SCOPE_MISSING', 403, render(invoice, { apiKey: readOnly })],
    ['ENVIRONMENT_NOT_ALLOWED', 403, render({ ...invoice, environment: 'production' }, { apiKey: testKey })],
    ['WORKSPACE_MISMATCH', 403, render(invoice, { workspace: other.id })],
    ['VERSION_NOT_FOUND', 404, render({ ...invoice, version: 99 })],
    ['ENVIRONMENT_NOT_FOUND', 404, render({ ...invoice, environment: 'nowhere' })],
    ['TEMPLATE_DISABLED', 409, render({ ...invoice, template: 'off' })],
    ['FORMAT_MISMATCH', 422, render({ ...invoice, format: 'zpl' })],
    ['DATA_SOURCE_UNAVAILABLE', 503, render({ ...invoice, environment: 'down' })],
    ['JOB_NOT_FOUND', 404, async () => await svc.getJob(randomUUID())],
    ['DOCUMENT_NOT_FOUND', 404, async () => await svc.downloadDocument(`${fx.server.url}/api/v1/documents/not-a-token`, join(dir, 'x'))],
    ['DATASET_NOT_FOUND', 404, async () => await svc.executeDataset('invoice', 'nope')],
    ['TEMPLATE_NOT_FOUND', 404, async () => await svc.getTemplate('nope')]
  ]
  for (const [code, status, call] of cases) {
    const err = await call().then(() => undefined, (e: unknown) => e)
    assert.ok(err instanceof ProblemError, `${code}: ${String(err)}`)
    assert.equal(err.errorCode, code)
    assert.equal(err.status, status, code)
    assert.ok(err.correlationId.length > 0, code)
    if (code === 'VALIDATION_FAILED') assert.ok(Object.keys(err.errors ?? {}).length > 0)
  }
})

test('a 503 of the real service is retried with backoff, then thrown', async () => {
  const retries: number[] = []
  const c = client({ retry: { maxAttempts: 3, baseDelayMs: 10 }, onRetry: (e) => retries.push(e.status ?? 0) })
  const err = await c.render({ template: 'invoice', parameters: { invoiceId: 1 }, environment: 'down' }, { correlationId: 'retry-503' }).catch((e: unknown) => e)
  assert.ok(err instanceof ProblemError)
  assert.equal(err.errorCode, 'DATA_SOURCE_UNAVAILABLE')
  assert.equal(err.correlationId, 'retry-503')
  assert.deepEqual(retries, [503, 503])
})

test('waitForJob() on the real service gives up at its deadline with the last state', async () => {
  const job = await svc.renderAsync({ template: 'sales-report', parameters: { from: '2020-01-01', to: '2030-12-31' } })
  // A deadline that has passed before the first poll: the job is still queued or running.
  const err = await svc.waitForJob(job, { timeoutMs: 0 }).catch((e: unknown) => e)
  assert.ok(err instanceof JobTimeoutError, String(err))
  assert.equal(err.job.jobId, job.jobId)
  assert.notEqual(err.job.status, 'succeeded')
})
