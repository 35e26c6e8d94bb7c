// The PROXY protocol in front of TLS (http/proxy-protocol.ts): the header's parser, and a real
// server trusting 127.0.0.1 as its balancer: each client gets its own address for the
// failed-authentication throttle, and a connection from the balancer without a header is closed.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createConnection } from 'node:net'
import { connect } from 'node:tls'
import { parseProxyHeader, ProxyHeaderError } from '../../../server/http/proxy-protocol.js'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { startServer } from '../../helpers/server.js'
import type { TestServer } from '../../helpers/server.js'
import { workspaceWithKey } from '../../helpers/fixtures.js'

const v2 = (command: number, family: number, body: Buffer): Buffer => {
  const head = Buffer.alloc(16)
  Buffer.from('0d0a0d0a000d0a515549540a', 'hex').copy(head)
  head[12] = 0x20 | command
  head[13] = (family << 4) | 1
  head.writeUInt16BE(body.length, 14)
  return Buffer.concat([head, body])
}

test('PROXY v1 and v2 headers: the client address, partial headers, LOCAL and refusals', () => {
  const line = Buffer.from('PROXY TCP4 203.0.113.7 10.0.0.1 5555 443\r\nTLS…')
  assert.deepEqual(parseProxyHeader(line), { length: 42, address: '203.0.113.7' })
  assert.equal(parseProxyHeader(line.subarray(0, 20)), undefined, 'more bytes needed')
  assert.equal(parseProxyHeader(Buffer.from('PRO')), undefined)
  assert.deepEqual(parseProxyHeader(Buffer.from('PROXY TCP6 2001:db8::1 ::1 1 2\r\n')), { length: 32, address: '2001:db8::1' })
  assert.deepEqual(parseProxyHeader(Buffer.from('PROXY UNKNOWN\r\n')), { length: 15, address: undefined })
  for (const bad of ['PROXY TCP4 999.1.1.1 10.0.0.1 1 2\r\n', 'PROXY TCP4 2001:db8::1 ::1 1 2\r\n', 'GET / HTTP/1.1\r\n', '\x16\x03\x01', 'PROXY ' + 'x'.repeat(120)]) {
    assert.throws(() => parseProxyHeader(Buffer.from(bad, 'latin1')), ProxyHeaderError, JSON.stringify(bad))
  }
  const inet = v2(1, 1, Buffer.from([203, 0, 113, 9, 10, 0, 0, 1, 0x15, 0xb3, 0x01, 0xbb]))
  assert.deepEqual(parseProxyHeader(Buffer.concat([inet, Buffer.from([0x16])])), { length: 28, address: '203.0.113.9' })
  assert.equal(parseProxyHeader(inet.subarray(0, 20)), undefined)
  const inet6 = v2(1, 2, Buffer.concat([Buffer.from('20010db8000000000000000000000002', 'hex'), Buffer.alloc(20)]))
  assert.deepEqual(parseProxyHeader(inet6), { length: 52, address: '2001:db8:0:0:0:0:0:2' })
  assert.deepEqual(parseProxyHeader(v2(0, 0, Buffer.alloc(0))), { length: 16, address: undefined }, 'LOCAL: a health check')
  assert.throws(() => parseProxyHeader(v2(1, 1, Buffer.alloc(600))), ProxyHeaderError, 'longer than any real header')
})

let database: TestDatabase
let server: TestServer

before(async () => {
  database = await createTestDatabase('proxyproto')
  server = await startServer(database.url, { SVC_PROXY_PROTOCOL_FROM: '127.0.0.1', SVC_AUTH_FAILURE_LIMIT: '3', SVC_HEADERS_TIMEOUT: '2s' })
})
after(async () => {
  await server.close()
  await database.drop()
})

/** One GET over TLS on a TCP connection that first sends `preamble` (as a balancer would). */
async function get (preamble: string, path: string, key: string): Promise<number> {
  const { hostname, port } = new URL(server.url)
  const tcp = createConnection({ host: hostname, port: Number(port) })
  await new Promise<void>((resolve, reject) => { tcp.once('connect', resolve); tcp.once('error', reject) })
  tcp.write(preamble)
  const tls = connect({ socket: tcp, ca: server.ca, servername: 'localhost' })
  try {
    await new Promise<void>((resolve, reject) => { tls.once('secureConnect', resolve); tls.once('error', reject) })
    tls.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`)
    let text = ''
    for await (const chunk of tls) text += (chunk as Buffer).toString('latin1')
    return Number(text.split(' ')[1])
  } finally {
    tls.destroy()
  }
}

const from = (address: string): string => `PROXY TCP4 ${address} 127.0.0.1 40000 443\r\n`

test('each client behind the balancer has its own address for the failed-authentication throttle', async () => {
  const bad = 'svc_live_' + 'x'.repeat(40)
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push(await get(from('203.0.113.7'), '/api/v1/whoami', bad))
  assert.deepEqual(statuses, [401, 401, 401, 429])
  // Another client of the same balancer, with a key never used before, is not blocked.
  const fresh = (await workspaceWithKey(server.context)).key.key
  assert.equal(await get(from('203.0.113.8'), '/api/v1/whoami', fresh), 200)
  assert.equal(await get(from('203.0.113.7'), '/api/v1/whoami', bad), 429)
  // The balancer's own check (v2 LOCAL) is served with the balancer's address.
  const local = v2(0, 0, Buffer.alloc(0)).toString('latin1')
  assert.equal(await get(local, '/healthz', bad), 200)
})

test('a connection from the balancer without a header is closed', async () => {
  const { hostname, port } = new URL(server.url)
  const tls = connect({ host: hostname, port: Number(port), ca: server.ca, servername: 'localhost' })
  const outcome = await new Promise<string>((resolve) => {
    tls.once('secureConnect', () => resolve('secure'))
    tls.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'))
    tls.once('close', () => resolve('close'))
  })
  tls.destroy()
  assert.notEqual(outcome, 'secure')
})
