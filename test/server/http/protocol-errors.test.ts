// Protocol-level errors (issue 12, items 1, 2, 7): malformed or oversized requests, slow
// requests and failed authentications are answered with a problem document and a correlation
// id, and kept-alive sockets end gracefully after the answer.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey, bearer } from '../../helpers/fixtures.js'
import { createConnection } from 'node:net'
import { rawConnect } from '../../helpers/raw-http.js'
import type { RawResponse } from '../../helpers/raw-http.js'

let database: TestDatabase
let server: TestServer
let key: string

before(async () => {
  database = await createTestDatabase('protocol')
  server = await startServer(database.url, { SVC_REQUEST_TIMEOUT: '2s', SVC_HEADERS_TIMEOUT: '2s', SVC_AUTH_FAILURE_LIMIT: '3' })
  key = (await workspaceWithKey(server.context)).key.key
})
after(async () => {
  await server.close()
  await database.drop()
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON under test: the assertions check its shape
function problemOf (res: RawResponse, status: number, code: string): any {
  assert.equal(res.status, status, res.body)
  assert.match(res.headers['content-type']!, /^application\/problem\+json/)
  const body = JSON.parse(res.body)
  assert.equal(body.errorCode, code)
  assert.equal(body.status, status)
  assert.match(body.correlationId, /^[0-9a-f-]{36}$/)
  assert.equal(body.correlationId, res.headers['x-correlation-id'])
  return body
}

const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n${extra}\r\n`

test('oversized headers on a kept-alive socket: 431 HEADERS_TOO_LARGE, Connection: close, then a graceful end', async () => {
  const conn = await rawConnect(server.url, server.ca)
  conn.write(get('/api/v1/whoami'))
  assert.equal((await conn.next()).status, 200)
  conn.write(get('/api/v1/whoami', `X-Big: ${'a'.repeat(20_000)}\r\n`))
  const res = await conn.next()
  problemOf(res, 431, 'HEADERS_TOO_LARGE')
  assert.equal(res.headers.connection, 'close')
  assert.equal(await conn.ended, 'end')
})

test('malformed request line and header characters: 400 BAD_REQUEST problems', async () => {
  for (const raw of ['NONSENSE\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad\u0001Header: x\r\n\r\n', 'GET /healthz HTTP/9.9\r\n\r\n']) {
    const conn = await rawConnect(server.url, server.ca)
    conn.write(raw)
    const res = await conn.next()
    problemOf(res, 400, 'BAD_REQUEST')
    assert.equal(res.headers.connection, 'close')
    assert.equal(await conn.ended, 'end')
  }
})

test('a body trickled slower than SVC_REQUEST_TIMEOUT: 408 REQUEST_TIMEOUT, socket closed', async () => {
  const conn = await rawConnect(server.url, server.ca)
  conn.write(`POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`)
  const timer = setInterval(() => { if (!conn.socket.destroyed) conn.write(' ') }, 200)
  try {
    const res = await conn.next()
    problemOf(res, 408, 'REQUEST_TIMEOUT')
    assert.equal(res.headers.connection, 'close')
    assert.notEqual(await conn.ended, 'ECONNRESET')
  } finally {
    clearInterval(timer)
    conn.close()
  }
})

test('a slow body keeps the caller\'s correlation id in its 408', async () => {
  const sent = '0b7e4a52-4f0c-4d6c-9d8e-3a1f2b3c4d5e'
  const conn = await rawConnect(server.url, server.ca)
  conn.write(`POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nX-Correlation-ID: ${sent}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`)
  try {
    const body = problemOf(await conn.next(), 408, 'REQUEST_TIMEOUT')
    assert.equal(body.correlationId, sent)
  } finally {
    conn.close()
  }
})

test('requests Node would refuse with an empty answer get problems: no Host, an unknown Expect, CONNECT', async () => {
  const cases: Array<[string, number, string]> = [
    ['GET /healthz HTTP/1.1\r\n\r\n', 400, 'BAD_REQUEST'],
    [`GET /api/v1/whoami HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nExpect: foo\r\n\r\n`, 417, 'EXPECTATION_FAILED'],
    [`POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}`, 417, 'EXPECTATION_FAILED'],
    ['CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n', 405, 'METHOD_NOT_ALLOWED']
  ]
  for (const [raw, status, code] of cases) {
    const conn = await rawConnect(server.url, server.ca)
    conn.write(raw)
    const res = await conn.next()
    problemOf(res, status, code)
    assert.equal(res.headers.connection, 'close', raw)
    assert.equal(await conn.ended, 'end', raw)
  }
  // HTTP/1.0 has no Host requirement; 100-continue is still honoured.
  const old = await rawConnect(server.url, server.ca)
  old.write('GET /healthz HTTP/1.0\r\n\r\n')
  assert.equal((await old.next()).status, 200)
  old.close()
  const cont = await rawConnect(server.url, server.ca)
  cont.write(`GET /api/v1/whoami HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nExpect: 100-continue\r\n\r\n`)
  const answers = [await cont.next()]
  if (answers[0]?.status === 100) answers.push(await cont.next())
  assert.equal(answers.at(-1)?.status, 200)
  cont.close()
})

test('a connection that sends nothing is closed after SVC_HEADERS_TIMEOUT, before or after TLS', async () => {
  // The server's SVC_HEADERS_TIMEOUT is 2 s; its idle timeout is 2 min. The bound below is
  // the behaviour (closed by the header deadline), not a speed.
  const within = async (what: string, ended: Promise<unknown>): Promise<void> => {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: still open after 20 s`)), 20_000) })
    try { await Promise.race([ended, late]) } finally { clearTimeout(timer) }
  }
  const silent = await rawConnect(server.url, server.ca)
  await within('after TLS', silent.ended)
  const { hostname, port } = new URL(server.url)
  const tcp = createConnection({ host: hostname, port: Number(port) })
  const closed = new Promise((resolve) => tcp.once('close', resolve))
  tcp.on('error', () => {})
  await within('before TLS', closed)
  // A connection that sent a request is not cut by that deadline afterwards.
  const used = await rawConnect(server.url, server.ca)
  used.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
  assert.equal((await used.next()).headers.connection, 'keep-alive')
  await new Promise((resolve) => setTimeout(resolve, 2500))
  used.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
  assert.equal((await used.next()).status, 200)
  used.close()
})

test('failed authentications are throttled per address: 429 with Retry-After, for failing requests only', async () => {
  const bad = bearer('svc_live_' + 'x'.repeat(40))
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key) })).status, 200)
  const statuses: number[] = []
  for (let i = 0; i < 3; i++) statuses.push((await server.fetch('GET', '/api/v1/whoami', { headers: bad })).status)
  assert.deepEqual(statuses, [401, 401, 401])
  const refused = await server.fetch('GET', '/api/v1/whoami', { headers: bad })
  assert.equal(refused.status, 429)
  assert.equal(refused.json().errorCode, 'RATE_LIMITED')
  assert.ok(Number(refused.headers['retry-after']) >= 1)
  // Every failure of the address is a 429 until the bucket refills; a working key is never
  // refused (a client behind the same balancer or NAT), one never used here included.
  const fresh = (await workspaceWithKey(server.context)).key.key
  const unseen = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(fresh) })
  assert.equal(unseen.status, 200)
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bearer('not a key') })).status, 429)
  const known = await server.fetch('GET', '/api/v1/whoami', { headers: bearer(key) })
  assert.equal(known.status, 200, 'the key authenticated before the block')
  assert.equal((await server.fetch('GET', '/api/v1/whoami', { headers: bad })).status, 429)
  // Routes without a key stay open.
  assert.equal((await server.fetch('GET', '/healthz')).status, 200)
})

test('connection limits: requests per socket end the socket gracefully; connections past the cap are closed', async () => {
  const limited = await startServer(database.url, { SVC_MAX_REQUESTS_PER_SOCKET: '2', SVC_MAX_CONNECTIONS: '2' })
  try {
    const a = await rawConnect(limited.url, limited.ca)
    a.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    assert.equal((await a.next()).headers.connection, 'keep-alive')
    a.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    const last = await a.next()
    assert.equal(last.status, 200)
    assert.equal(last.headers.connection, 'close', 'the second request is the socket\'s last')
    assert.equal(await a.ended, 'end')

    // Pipelined past the cap: the third request gets a 503 problem or nothing, never a bare 503.
    const b = await rawConnect(limited.url, limited.ca)
    b.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(3))
    assert.equal((await b.next()).status, 200)
    assert.equal((await b.next()).headers.connection, 'close')
    const third = await b.next().catch(() => undefined)
    if (third !== undefined) problemOf(third, 503, 'SERVICE_UNAVAILABLE')
    b.close()

    const open = [await rawConnect(limited.url, limited.ca), await rawConnect(limited.url, limited.ca)]
    for (const conn of open) {
      conn.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
      assert.equal((await conn.next()).status, 200)
    }
    // A third concurrent connection is dropped by the server before TLS completes.
    await assert.rejects(rawConnect(limited.url, limited.ca))
    for (const conn of open) conn.close()
  } finally {
    await limited.close()
  }
})
