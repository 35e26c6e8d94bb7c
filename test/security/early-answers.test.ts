// Issue 30, finding 8: an answer given before the request's body was read (413, a bad key) must
// reach a client that is still sending, instead of being lost to a reset (EPIPE/ECONNRESET) when
// the server destroys the socket right after the answer (RFC 9112 §9.6). Raw TLS sockets against a
// real server: 200 oversized uploads, announced and chunked, with and without Expect: 100-continue.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:tls'
import type { ConnectionOptions } from 'node:tls'
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { makeHome, startServer } from '../helpers/server.js'
import type { TestServer } from '../helpers/server.js'
import { workspaceWithKey } from '../helpers/fixtures.js'
import { rawConnect } from '../helpers/raw-http.js'
import type { RawConnection, RawResponse } from '../helpers/raw-http.js'

let database: TestDatabase
let server: TestServer
let key: string
let dir: string

before(async () => {
  database = await createTestDatabase('early')
  dir = await makeHome()
  server = await startServer(database.url, { SVC_BODY_LIMIT: '262144' }, dir)
  key = (await workspaceWithKey(server.context)).key.key
})
after(async () => {
  await server.close()
  await database.drop()
})

const ANNOUNCED = 20 * 1024 * 1024
const PIECE = Buffer.alloc(64 * 1024, 'a')
const CHUNK = Buffer.concat([Buffer.from(`${PIECE.length.toString(16)}\r\n`), PIECE, Buffer.from('\r\n')])

interface Upload { chunked: boolean, expect: boolean, authorization: string }

function head (u: Upload): string {
  return 'POST /api/v1/render HTTP/1.1\r\nHost: localhost\r\n' +
    `Authorization: Bearer ${u.authorization}\r\nContent-Type: application/json\r\n` +
    (u.chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${ANNOUNCED}\r\n`) +
    (u.expect ? 'Expect: 100-continue\r\n' : '') + '\r\n'
}

/** Sends the body as fast as the socket takes it until `stop` says the answer is in. */
async function pump (conn: RawConnection, u: Upload, stop: () => boolean): Promise<void> {
  let sent = 0
  while (!stop() && conn.socket.writable && (u.chunked || sent < ANNOUNCED)) {
    const piece = u.chunked ? CHUNK : PIECE
    sent += PIECE.length
    if (!conn.socket.write(piece)) {
      await new Promise<void>((resolve) => {
        const go = (): void => { conn.socket.off('drain', go); conn.socket.off('close', go); clearTimeout(timer); resolve() }
        const timer = setTimeout(go, 200)
        conn.socket.on('drain', go)
        conn.socket.on('close', go)
      })
    }
  }
}

/**
 * One upload: the final answer, and every socket error the client saw before it closed the
 * connection itself. With Expect, the client waits (as curl does, up to 1 s) for the answer
 * before sending, then sends anyway.
 */
interface Outcome { answer?: RawResponse, interim: number[], errors: string[], failure?: string }
async function upload (u: Upload): Promise<Outcome> {
  const conn = await rawConnect(server.url, server.ca)
  const errors: string[] = []
  conn.socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message))
  const interim: number[] = []
  let answer: RawResponse | undefined
  let failure: string | undefined
  let done = false
  let heard: () => void = () => {}
  const firstAnswer = new Promise<void>((resolve) => { heard = resolve })
  conn.write(head(u))
  const reading = (async () => {
    try {
      for (;;) {
        const res = await conn.next()
        heard()
        if (res.status >= 200) { answer = res; return }
        interim.push(res.status)
      }
    } catch (err) {
      failure = (err as Error).message
    } finally {
      done = true
    }
  })()
  if (u.expect) await Promise.race([firstAnswer, reading, new Promise((resolve) => setTimeout(resolve, 1000))])
  const sending = pump(conn, u, () => done)
  await reading
  await sending
  // The answer is in: the client stops sending and closes its side; the server closes too.
  const closed = conn.socket.closed ? Promise.resolve() : once(conn.socket, 'close')
  conn.socket.end()
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))])
  conn.close()
  return { answer, interim, errors, failure }
}

test('200 oversized uploads while the client is still sending: a 413 problem every time, no reset', async () => {
  const kinds: Upload[] = [
    { chunked: false, expect: false, authorization: key },
    { chunked: false, expect: true, authorization: key },
    { chunked: true, expect: false, authorization: key },
    { chunked: true, expect: true, authorization: key }
  ]
  const failures: string[] = []
  // Four at a time: the server answers while other uploads keep it busy.
  for (let round = 0; round < 50; round++) {
    const results = await Promise.all(kinds.map(upload))
    results.forEach((r, i) => {
      const kind = `${kinds[i]?.chunked ? 'chunked' : 'Content-Length'}${kinds[i]?.expect ? ' + Expect' : ''}`
      const code = r.answer === undefined ? undefined : (JSON.parse(r.answer.body) as { errorCode?: string }).errorCode
      if (r.answer?.status !== 413 || code !== 'PAYLOAD_TOO_LARGE' || r.errors.length > 0) {
        failures.push(`#${round} ${kind}: ${r.answer?.status ?? r.failure} ${r.errors.join(',')}`)
      }
      // An announced oversized body is refused before any of it is asked for: no 100 Continue.
      if (kinds[i]?.expect && !kinds[i].chunked && r.interim.length > 0) failures.push(`#${round} ${kind}: interim ${r.interim.join(',')}`)
      if (r.answer !== undefined) {
        assert.equal(r.answer.headers.connection, 'close', kind)
        assert.match(r.answer.headers['content-type']!, /^application\/problem\+json/)
      }
    })
  }
  assert.deepEqual(failures, [])
})

/** curl as the issue ran it: exit code, the status it read, and what it said went wrong. */
function curl (args: string[]): Promise<{ code: number, status: string, stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--cacert', join(dir, 'ca.pem'), '-o', '/dev/null', '-w', '%{http_code}',
      '-H', `Authorization: Bearer ${key}`, '-H', 'Content-Type: application/json', '--data-binary', `@${join(dir, 'big.json')}`,
      ...args, `${server.url}/api/v1/render`], (err, stdout, stderr) => {
      const code = err === null ? 0 : Number((err as { code?: unknown }).code ?? 1)
      resolve({ code, status: stdout, stderr: stderr.trim() })
    })
  })
}

test('curl uploading 20 MB (Expect: 100-continue or not, chunked or not) reads the 413 every time', async () => {
  await writeFile(join(dir, 'ca.pem'), server.ca)
  await writeFile(join(dir, 'big.json'), Buffer.alloc(ANNOUNCED, 'a'))
  // curl sends Expect: 100-continue with a body this large; `Expect:` turns it off.
  const chunked = ['-H', 'Transfer-Encoding: chunked']
  const kinds = [[], ['-H', 'Expect:'], chunked, [...chunked, '-H', 'Expect:']]
  const failures: string[] = []
  for (let round = 0; round < 20; round++) {
    const results = await Promise.all(kinds.map(curl))
    results.forEach((r, i) => {
      if (r.code !== 0 || r.status !== '413') {
        failures.push(`#${round} ${kinds[i]!.join(' ')}: exit ${r.code}, ${r.status} ${r.stderr}`)
      }
    })
  }
  assert.deepEqual(failures, [])
})

/**
 * A client that keeps its side open after the server's FIN (half-open) and keeps sending at
 * `everyMs`: how the connection ended, or 'still open' after `guardMs`.
 */
async function feedUntilClosed (env: Record<string, string>, piece: Buffer, everyMs: number,
  guardMs: number): Promise<string> {
  const own = await startServer(database.url, { SVC_BODY_LIMIT: '262144', ...env })
  const { hostname, port } = new URL(own.url)
  // Node's TLS client takes allowHalfOpen (net.Socket's option), which its types do not list.
  const options: ConnectionOptions & { allowHalfOpen: boolean } =
    { host: hostname, port: Number(port), ca: own.ca, servername: 'localhost', allowHalfOpen: true }
  const socket = connect(options)
  try {
    await once(socket, 'secureConnect')
    socket.on('error', () => {})
    let received = ''
    let finned = false
    socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1') })
    socket.on('end', () => { finned = true })
    socket.write(head({ chunked: false, expect: false, authorization: key }))
    const feeding = setInterval(() => {
      if (socket.writable && socket.writableLength < 4 << 20) socket.write(piece)
    }, everyMs)
    try {
      const guard = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), guardMs))
      const closed = new Promise<string>((resolve) => { socket.once('close', () => resolve('closed')) })
      const how = await Promise.race([closed, guard])
      assert.match(received, /^HTTP\/1\.1 413 /, 'the answer came first')
      assert.ok(finned, 'after the answer, the server ended its side')
      return how
    } finally {
      clearInterval(feeding)
    }
  } finally {
    socket.destroy()
    await own.close()
  }
}

test('the drain after an early answer is bounded: SVC_LINGER_BYTES, then SVC_LINGER_TIMEOUT', async () => {
  // Fast and endless: closed once 1 MiB more was read, long before the minute the timeout allows.
  const fast = await feedUntilClosed({ SVC_LINGER_BYTES: '1048576', SVC_LINGER_TIMEOUT: '60s' }, PIECE, 2, 20_000)
  assert.equal(fast, 'closed')
  // A trickle that never reaches the bytes: closed by the timeout.
  assert.equal(await feedUntilClosed({ SVC_LINGER_TIMEOUT: '1s' }, Buffer.alloc(100, 'a'), 50, 20_000), 'closed')
})
