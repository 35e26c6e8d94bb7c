// Bodies a hostile caller sends (issue 12, items 1, 3, 4, 5): built-in property names as
// members, integers beyond the columns, file names that no header or column can carry, deep or
// wide JSON. Every one is a 400 problem naming the member, never a 500.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import type { TestServer } from '../../helpers/server.js'
import { bearer } from '../../helpers/fixtures.js'
import { renderFixture } from '../../helpers/render-data.js'
import { rawConnect } from '../../helpers/raw-http.js'
import type { RawConnection, RawResponse } from '../../helpers/raw-http.js'
import { problemOf } from '../../helpers/problems.js'

let fx: Awaited<ReturnType<typeof renderFixture>>
let server: TestServer

before(async () => {
  fx = await renderFixture('hostile')
  server = fx.server
})
after(async () => { await fx.close() })

const post = (path: string, rawBody: string) =>
  server.fetch('POST', path, { headers: { ...bearer(fx.ws.key.key), 'content-type': 'application/json' }, rawBody })

test('members named like built-in properties are members like any other', async () => {
  for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf']) {
    const body = problemOf(await post('/api/v1/render', `{"template":"invoice","${name}":1}`), 400, 'VALIDATION_FAILED')
    assert.deepEqual(body.errors[name], ['is not a known member'])
    const ds = problemOf(await post('/api/v1/datasets/invoice/header/execute', `{"${name}":{}}`), 400, 'VALIDATION_FAILED')
    assert.deepEqual(ds.errors[name], ['is not a known member'])
    const param = problemOf(await post('/api/v1/render', `{"template":"invoice","parameters":{"invoiceId":1,"${name}":2}}`), 400, 'PARAMETER_INVALID')
    assert.ok(Array.isArray(param.errors[name]))
  }
  problemOf(await post('/api/v1/render', '{"template":"invoice","__proto__":{"x":1}}'), 400, 'VALIDATION_FAILED')
})

test('version beyond the INT column → 400 naming version', async () => {
  const body = problemOf(await post('/api/v1/render', '{"template":"invoice","version":2147483648}'), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(body.errors.version))
  problemOf(await post('/api/v1/render', '{"template":"invoice","version":1e300}'), 400, 'VALIDATION_FAILED')
})

test('file names: lone surrogates, controls, DEL, bidi controls and over-long names are refused', async () => {
  const bad = ['"\\ud800.pdf"', '"a\\udc00"', '"\\u202efdp.exe"', '"\\u2067x.pdf"', '"a\\u0085.pdf"', '"a\\u007f.pdf"',
    '"a\\tb.pdf"', JSON.stringify('é'.repeat(128) + '.pdf'), '"../x.pdf"']
  for (const name of bad) {
    for (const async of [false, true]) {
      const body = problemOf(await post('/api/v1/render', `{"template":"invoice","parameters":{"invoiceId":1},"async":${async},"fileName":${name}}`), 400, 'VALIDATION_FAILED')
      assert.ok(Array.isArray(body.errors.fileName), name)
    }
  }
  const ok = await post('/api/v1/render', `{"template":"invoice","parameters":{"invoiceId":1},"fileName":${JSON.stringify('Rechnung März 😀.pdf')}}`)
  assert.equal(ok.status, 200)
  assert.equal(ok.headers['content-disposition'], `attachment; filename="Rechnung M_rz __.pdf"; filename*=UTF-8''${encodeURIComponent('Rechnung März 😀.pdf')}`)
})

test('deep JSON → 400 naming the member, sync and async, datasets too (no stack overflow)', async () => {
  const deep = '['.repeat(200_000) + ']'.repeat(200_000)
  for (const async of [false, true]) {
    const body = problemOf(await post('/api/v1/render', `{"template":"invoice","async":${async},"parameters":{"invoiceId":1},"context":{"a":${deep}}}`), 400, 'VALIDATION_FAILED')
    assert.match(body.errors.context[0], /deeper than 64/)
  }
  const ds = problemOf(await post('/api/v1/datasets/invoice/header/execute', `{"parameters":{"invoiceId":${deep}}}`), 400, 'VALIDATION_FAILED')
  assert.match(ds.errors.parameters[0], /deeper than 64/)
  // 63 levels of context under the body still pass the shape check.
  const fine = await post('/api/v1/render', `{"template":"invoice","parameters":{"invoiceId":1},"context":{"a":${'['.repeat(62)}${']'.repeat(62)}}}`)
  assert.equal(fine.status, 200)
})

test('too many members in parameters or context → 400 naming the member', async () => {
  const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i])))
  const body = problemOf(await post('/api/v1/render', `{"template":"invoice","parameters":{"invoiceId":1},"context":${wide}}`), 400, 'VALIDATION_FAILED')
  assert.match(body.errors.context[0], /more than 10000/)
  const p = problemOf(await post('/api/v1/render', `{"template":"invoice","parameters":${wide}}`), 400, 'VALIDATION_FAILED')
  assert.ok(Array.isArray(p.errors.parameters))
})

test('a body of many unknown members → one small 400, not an error per member', async () => {
  // 1 MiB of unknown members: the validator reported each one (a 3.8 MB answer, ~700 ms).
  const wide = '{"template":"invoice",' + Array.from({ length: 100_000 }, (_, i) => `"${i}":0`).join(',') + '}'
  for (const path of ['/api/v1/render', '/api/v1/datasets/invoice/header/execute']) {
    const res = await post(path, wide)
    const body = problemOf(res, 400, 'VALIDATION_FAILED')
    assert.deepEqual(Object.keys(body.errors), ['body'])
    assert.match(body.errors.body[0], /more than 64 members/)
    assert.ok(res.body.length < 1000, `answer of ${res.body.length} bytes`)
  }
  // Up to the limit, unknown members are named one by one as before.
  const some = '{"template":"invoice",' + Array.from({ length: 63 }, (_, i) => `"m${i}":0`).join(',') + '}'
  const named = problemOf(await post('/api/v1/render', some), 400, 'VALIDATION_FAILED')
  assert.equal(Object.keys(named.errors).length, 63)
})

test('POST /v1/render with a large or chunked body: an unknown key is refused before the body is read', async () => {
  const unknown = 'svc_live_' + 'x'.repeat(40)
  const head = (framing: string): string =>
    `POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${unknown}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`
  const refused = async (conn: RawConnection, framing: string): Promise<RawResponse> => {
    // Headers only: the 401 comes without a byte of the announced body.
    conn.write(head(framing))
    const res = await conn.next()
    assert.equal(res.status, 401, framing)
    assert.equal(JSON.parse(res.body).errorCode, 'API_KEY_INVALID')
    assert.equal(JSON.parse(res.body).correlationId, res.headers['x-correlation-id'])
    return res
  }
  // A body announced within the body limit is read and dropped after the answer, and the
  // connection serves the next request.
  const kept = await rawConnect(server.url, server.ca)
  try {
    assert.equal((await refused(kept, 'Content-Length: 500000')).headers.connection, 'keep-alive')
    kept.write('a'.repeat(500_000))
    kept.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    assert.equal((await kept.next()).status, 200)
  } finally {
    kept.close()
  }
  // Chunked, or announced past the limit, the body has no bound: the connection ends after the
  // answer instead of draining whatever the caller keeps sending.
  for (const framing of ['Transfer-Encoding: chunked', 'Content-Length: 50000000']) {
    const conn = await rawConnect(server.url, server.ca)
    try {
      assert.equal((await refused(conn, framing)).headers.connection, 'close', framing)
      const chunk = framing.startsWith('Transfer') ? `10000\r\n${'a'.repeat(0x10000)}\r\n` : 'a'.repeat(0x10000)
      const feeding = setInterval(() => { if (conn.socket.writable) conn.write(chunk) }, 5)
      try {
        await conn.ended
        await assert.rejects(conn.next(), /socket ended/, 'no second answer on the connection')
      } finally {
        clearInterval(feeding)
      }
    } finally {
      conn.close()
    }
  }
  // A valid key with a large body goes on as before: the body is read and the route answers.
  const padded = `{"template":"nope",${' '.repeat(40_000)}"parameters":{}}`
  problemOf(await post('/api/v1/render', padded), 404, 'TEMPLATE_NOT_FOUND')
  const ok = await post('/api/v1/render', `{"template":"invoice",${' '.repeat(40_000)}"parameters":{"invoiceId":1}}`)
  assert.equal(ok.status, 200)
})

test('a body with a Content-Encoding other than identity → 415 UNSUPPORTED_MEDIA_TYPE, after the key check (issue 30)', async () => {
  const json = JSON.stringify({ template: 'invoice', parameters: { invoiceId: 1 } })
  const send = async (path: string, body: Buffer, encoding: string, key = fx.ws.key.key) => {
    const res = await request(server.url + path, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', 'content-encoding': encoding },
      body,
      dispatcher: server.agent
    })
    const buf = Buffer.from(await res.body.arrayBuffer())
    return { status: res.statusCode, headers: res.headers, json: () => JSON.parse(buf.toString('utf8')) }
  }
  // Real gzip, and plain JSON merely labelled gzip (it was parsed as if unlabelled), on both body routes.
  for (const [body, encoding] of [[gzipSync(json), 'gzip'], [Buffer.from(json), 'gzip'], [Buffer.from(json), 'br'],
    [Buffer.from(json), 'identity, deflate']] as const) {
    for (const path of ['/api/v1/render', '/api/v1/datasets/invoice/header/execute']) {
      const res = await send(path, path.endsWith('execute') ? Buffer.from('{}') : body, encoding)
      const p = problemOf(res, 415, 'UNSUPPORTED_MEDIA_TYPE')
      assert.match(p.detail, /Content-Encoding/)
      assert.equal(res.headers['accept-encoding'], 'identity')
    }
  }
  // The key is checked first, whatever the body.
  problemOf(await send('/api/v1/render', gzipSync(json), 'gzip', 'svc_live_' + 'x'.repeat(40)), 401, 'API_KEY_INVALID')
  // identity is no coding at all.
  assert.equal((await send('/api/v1/render', Buffer.from(json), 'identity')).status, 200)
  assert.equal((await send('/api/v1/render', Buffer.from(json), 'Identity')).status, 200)
})
