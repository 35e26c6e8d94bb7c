// Fuzz and property suite (issue 12): request bodies generated from the route schemas plus
// hostile mutations (built-in property names as members, lone surrogates, bidi and control
// characters, deep nesting, huge integers, broken JSON), and raw HTTP (oversized and malformed
// headers, slow bodies) over kept-alive sockets, against a real server. Every answer is a
// problem document with an errorCode and the X-Correlation-ID as correlationId, or a success;
// nothing is a 5xx other than 503; afterwards a normal render of another workspace is served
// and appears in `svc runs list`. Fixed seeds, bounded runs: the same requests every time.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import type { TestServer, TestResponse } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture, renderWorkspace } from '../../helpers/render-data.js'
import { rawConnect } from '../../helpers/raw-http.js'
import type { RawResponse } from '../../helpers/raw-http.js'
import { svc } from '../../cli/foundation-helpers.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer
const masterKey = randomBytes(32).toString('hex')
const seen = new Map<number, number>()

before(async () => {
  process.env.SVC_TEST_MASTER_KEY = masterKey
  fx = await renderFixture('fuzz', {
    SVC_RATE_LIMIT: '1000000',
    SVC_AUTH_FAILURE_LIMIT: '1000000',
    SVC_REQUEST_TIMEOUT: '2s',
    SVC_HEADERS_TIMEOUT: '2s',
    SVC_BODY_LIMIT: '1048576'
  })
  server = fx.server
})
after(async () => {
  delete process.env.SVC_TEST_MASTER_KEY
  await fx.close()
})

// ---- what every answer must look like ----

function checkAnswer (status: number, headers: Record<string, unknown>, body: Buffer | string, what: string): void {
  seen.set(status, (seen.get(status) ?? 0) + 1)
  assert.ok(status < 500 || status === 503, `${what}: ${status} ${String(body).slice(0, 300)}`)
  const correlationId = headers['x-correlation-id']
  assert.equal(typeof correlationId, 'string', `${what}: X-Correlation-ID`)
  if (status < 400) return
  assert.match(String(headers['content-type']), /^application\/problem\+json/, `${what}: ${status}`)
  const problem = JSON.parse(String(body))
  assert.equal(typeof problem.errorCode, 'string', what)
  assert.equal(problem.status, status, what)
  assert.equal(problem.correlationId, correlationId, `${what}: correlationId = X-Correlation-ID`)
}

const checkResponse = (res: TestResponse, what: string): void => checkAnswer(res.status, res.headers, res.body, what)
const checkRaw = (res: RawResponse, what: string): void => checkAnswer(res.status, res.headers, res.body, what)

// ---- generated bodies ----

const PROTO_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable',
  'toLocaleString', '__proto__', '__defineGetter__', '__lookupSetter__', 'prototype']
const NASTY = ['\ud800', '\udfff', '\udc00\ud800', '\u202e', '\u2066', '\u200f', '\u061c', '\u0085', '\u009b', '\u007f', '\u0000',
  '\u001b', '\t', '\n', '\ufeff', '\uffff', 'é', '😀', '/', '\\', '"', '../', '%00', '{{', '}}']

const hostileString = fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...NASTY)), { maxLength: 10 }).map((parts) => parts.join(''))
const hugeNumber = fc.oneof(
  fc.integer(),
  fc.integer({ min: 1, max: 3 }),
  fc.constantFrom(
    0,
    -1,
    2147483647,
    2147483648,
    -2147483649,
    4294967296,
    9007199254740992,
    1e21,
    1e300,
    -1e300,
    0.5,
    1.0000001
  )
)
const memberName = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.constantFrom('invoiceId', 'batchId', 'region', 'a'), hostileString)

/** An object built from entries with defineProperty: "__proto__" stays an own member. */
function objectOf (entries: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {}
  for (const [k, v] of entries) {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  }
  return o
}

const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    hostileString, hugeNumber, fc.boolean(), fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(memberName, tie('value')), { maxLength: 4 }).map(objectOf))
}))

const template = fc.oneof(fc.constantFrom('invoice', 'shipping-label', 'sales-report', 'nope'), hostileString)
const parameters = fc.oneof(
  fc.record({ invoiceId: fc.oneof(fc.constantFrom(1, 2), hugeNumber, hostileString) }),
  fc.record({ batchId: fc.oneof(fc.constant(7), hugeNumber) }),
  fc.array(fc.tuple(memberName, jsonValue), { maxLength: 5 }).map(objectOf),
  jsonValue)

const renderBody = fc.tuple(
  fc.record({
    template,
    version: fc.oneof(fc.constant(1), hugeNumber),
    environment: fc.oneof(fc.constantFrom('production', 'staging', 'nope'), hostileString),
    parameters,
    format: fc.oneof(fc.constantFrom('pdf', 'zpl'), hostileString),
    async: fc.oneof(fc.boolean(), jsonValue),
    fileName: fc.oneof(fc.constantFrom('a.pdf', 'Rechnung März.pdf'), hostileString),
    context: fc.oneof(jsonValue, fc.array(fc.tuple(memberName, jsonValue), { maxLength: 4 }).map(objectOf))
  }, { requiredKeys: [] }),
  fc.array(fc.tuple(memberName, jsonValue), { maxLength: 2 })
).map(([known, extra]) => objectOf([...Object.entries(known), ...extra]))

// A share of plainly valid renders, so the fuzz also runs real renders and jobs alongside.
const validRender = fc.record({
  template: fc.constant('invoice'),
  parameters: fc.record({ invoiceId: fc.constantFrom(1, 2) }),
  async: fc.boolean(),
  fileName: fc.oneof(fc.constant('ok.pdf'), hostileString)
}, { requiredKeys: ['template', 'parameters'] })

/** Mutations of the JSON text: none, deep nesting, a truncation, a replaced character. */
const mutation = fc.oneof(
  { weight: 4, arbitrary: fc.constant((text: string) => text) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 250_000 }).map((n) => (text: string) => `{"template":"invoice","context":{"a":${'['.repeat(n)}${']'.repeat(n)}},"x":${text}}`) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 100_000 }).map((n) => () => `{"template":"invoice","parameters":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`) },
  { weight: 1, arbitrary: fc.nat().map((k) => (text: string) => text.slice(0, k % (text.length + 1))) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom('\u0000', '\\', '"', '\ud800', '{', ']', ',')).map(([k, c]) => (text: string) => { const i = k % (text.length + 1); return text.slice(0, i) + c + text.slice(i + 1) }) }
)

const post = (path: string, rawBody: string, key = fx.ws.key.key, contentType = 'application/json'): Promise<TestResponse> =>
  server.fetch('POST', path, { headers: { ...bearer(key), 'content-type': contentType }, rawBody })

test('POST /v1/render: generated and mutated bodies get a success or a problem, never a 5xx other than 503', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof({ weight: 3, arbitrary: renderBody }, { weight: 1, arbitrary: validRender }),
      mutation,
      async (body, mutate) => {
        const text = mutate(JSON.stringify(body))
        checkResponse(await post('/api/v1/render', text), `render ${text.slice(0, 200)}`)
      }
    ),
    { seed: 0x5eed12, numRuns: 400 }
  )
})

test('datasets, templates and jobs: generated names and bodies get a success or a problem', async () => {
  const executeBody = fc.tuple(
    fc.record({ parameters, environment: fc.oneof(fc.constant('production'), hostileString), maxRows: hugeNumber, context: jsonValue }, { requiredKeys: [] }),
    fc.array(fc.tuple(memberName, jsonValue), { maxLength: 2 })
  ).map(([known, extra]) => objectOf([...Object.entries(known), ...extra]))
  const segment = fc.oneof(fc.constantFrom('invoice', 'header', 'lines', 'constructor', '__proto__', 'toString'), hostileString)
    .map((s) => encodeURIComponent(s.toWellFormed()))
  await fc.assert(fc.asyncProperty(segment, segment, executeBody, mutation, async (tpl, dataset, body, mutate) => {
    const text = mutate(JSON.stringify(body))
    checkResponse(await post(`/api/v1/datasets/${tpl}/${dataset}/execute`, text), `execute ${tpl}/${dataset} ${text.slice(0, 200)}`)
    checkResponse(await server.fetch('GET', `/api/v1/templates/${tpl}`, { headers: bearer(fx.ws.key.key) }), `template ${tpl}`)
    checkResponse(await server.fetch('GET', `/api/v1/jobs/${dataset}`, { headers: bearer(fx.ws.key.key) }), `job ${dataset}`)
  }), { seed: 0x5eed13, numRuns: 120 })
})

test('bad keys and odd content types with hostile bodies are problems too', async () => {
  const key = fc.oneof(fc.constant(fx.ws.key.key), fc.constant('svc_live_' + 'x'.repeat(40)), hostileString.map((s) => s.replace(/[^\x21-\x7e]/g, 'x')))
  const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1')
  await fc.assert(fc.asyncProperty(key, contentType, renderBody, mutation, async (k, type, body, mutate) => {
    const text = mutate(JSON.stringify(body))
    checkResponse(await post('/api/v1/render', text, k, type), `render as ${type} with ${k.slice(0, 20)}`)
  }), { seed: 0x5eed14, numRuns: 120 })
})

// ---- raw HTTP over kept-alive sockets ----

const headerBytes = fc.uint8Array({ minLength: 1, maxLength: 40 }).map((a) => Buffer.from(a).toString('latin1').replace(/\r|\n/g, ''))
const rawRequest = fc.oneof(
  fc.integer({ min: 17_000, max: 80_000 }).map((n) => `GET /api/v1/whoami HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(n)}\r\n\r\n`),
  fc.integer({ min: 17_000, max: 80_000 }).map((n) => `GET /api/v1/${'a'.repeat(n)} HTTP/1.1\r\nHost: localhost\r\n\r\n`),
  fc.integer({ min: 200, max: 2000 }).map((n) => `GET /healthz HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: n }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`),
  fc.tuple(headerBytes, headerBytes).map(([name, value]) => `GET /api/v1/whoami HTTP/1.1\r\nHost: localhost\r\n${name}: ${value}\r\n\r\n`),
  headerBytes.map((line) => `${line}\r\n\r\n`),
  fc.constantFrom(
    'POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n',
    'POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
    'POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
    'POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
    'GET /api/v1/whoami HTTP/1.1\r\nHost: localhost\r\n Folded: header\r\n\r\n',
    'GET /api/v1/whoami HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer \u00ff\u00fe\r\n\r\n',
    'GET /api/v1/templates/%zz HTTP/1.1\r\nHost: localhost\r\n\r\n',
    'GET http://evil.example/ HTTP/1.1\r\nHost: localhost\r\n\r\n',
    'BREW /coffee HTCPCP/1.0\r\n\r\n'
  )
)

test('raw HTTP: oversized and malformed requests after a good one on a kept-alive socket', async () => {
  await fc.assert(fc.asyncProperty(rawRequest, async (raw) => {
    const conn = await rawConnect(server.url, server.ca)
    try {
      conn.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
      checkRaw(await conn.next(), 'healthz before')
      conn.write(Buffer.from(raw, 'latin1'))
      const res = await conn.next()
      checkRaw(res, `raw ${JSON.stringify(raw.slice(0, 120))}`)
      if (res.headers.connection === 'close') assert.equal(await conn.ended, 'end', 'a graceful end after Connection: close, no reset')
    } finally {
      conn.close()
    }
  }), { seed: 0x5eed15, numRuns: 80 })
})

test('raw HTTP: slow bodies are cut off with 408 REQUEST_TIMEOUT, other sockets keep being served', async () => {
  const slow = await Promise.all([0, 1, 2].map(async () => {
    const conn = await rawConnect(server.url, server.ca)
    // A kept-alive socket that served a request already, then trickles the next body.
    conn.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    checkRaw(await conn.next(), 'healthz before the slow body')
    conn.write(`POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${fx.ws.key.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"template":`)
    return conn
  }))
  const timers = slow.map((conn) => setInterval(() => { if (!conn.socket.destroyed) conn.write(' ') }, 300))
  try {
    const ok = await server.fetch('POST', '/api/v1/render', { headers: bearer(fx.ws.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 } } })
    assert.equal(ok.status, 200, 'served while slow uploads are pending')
    for (const conn of slow) {
      const res = await conn.next()
      checkRaw(res, 'slow body')
      assert.equal(res.status, 408)
      assert.equal(JSON.parse(res.body).errorCode, 'REQUEST_TIMEOUT')
      assert.notEqual(await conn.ended, 'ECONNRESET')
    }
  } finally {
    for (const t of timers) clearInterval(t)
    for (const conn of slow) conn.close()
  }
})

test('after the fuzz: a normal render of another workspace is served and appears in svc runs list', async () => {
  const other = await renderWorkspace(server.context, fx.dataUrl)
  const res = await server.fetch('POST', '/api/v1/render', { headers: bearer(other.key.key), body: { template: 'invoice', parameters: { invoiceId: 1 } } })
  assert.equal(res.status, 200)
  const runId = String(res.headers['x-run-id'])
  const env = { SVC_DATABASE_URL: fx.database.url, SVC_MASTER_KEY: masterKey, SVC_HOME: server.config.home, SVC_LOG_LEVEL: 'silent' }
  let ids: string[] = []
  for (let i = 0; i < 50 && !ids.includes(runId); i++) {
    const listed = await svc(['--json', 'runs', 'list', '--workspace', other.workspace.id], env)
    assert.equal(listed.code, 0, listed.stderr)
    ids = (listed.json() as Array<{ id: string }>).map((r) => r.id)
    if (!ids.includes(runId)) await new Promise((resolve) => setTimeout(resolve, 200))
  }
  assert.ok(ids.includes(runId), `run ${runId} in the run history`)
  // The fuzz reached both outcomes: successes and problems of several kinds.
  assert.ok((seen.get(200) ?? 0) > 0 && (seen.get(202) ?? 0) > 0 && (seen.get(400) ?? 0) > 0, JSON.stringify([...seen]))
})
