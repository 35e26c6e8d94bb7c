// The studio's guard on a real `svc studio` process: the token in the path, the Host header,
// the Origin of writes, the headers of every answer, and the loopback-only listener.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { projectRoot } from '../../../server/util/paths.js'
import { svc } from '../../cli/foundation-helpers.js'
import { call, post, startStudio, type Answer, type StudioProcess } from './helpers.js'

const invoice = join(projectRoot, 'examples', 'templates', 'invoice.json')
let s: StudioProcess
const answers: Answer[] = []

before(async () => { s = await startStudio([invoice]) })
after(async () => { await s.close() })

async function seen (a: Promise<Answer>): Promise<Answer> {
  const r = await a
  answers.push(r)
  return r
}

test('the printed URL: loopback, a random port, a 43-character base64url token (32 bytes)', () => {
  assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/$/)
  assert.equal(Buffer.from(s.token, 'base64url').length, 32)
})

test('with the token: the session and the page', async () => {
  const r = await seen(call(s, 'GET', `/${s.token}/api/session`))
  assert.equal(r.status, 200)
  assert.equal(r.json().source.kind, 'file')
  const page = await seen(call(s, 'GET', `/${s.token}/`))
  assert.equal(page.status, 200)
  assert.match(String(page.headers['content-type']), /^text\/html/)
})

test('without the token, or with a wrong one of the same length: 404 with nothing that tells why', async () => {
  const none = await seen(call(s, 'GET', '/api/session'))
  const root = await seen(call(s, 'GET', '/'))
  // Same length, one character changed: the compare must look at every character.
  const last = s.token.at(-1) === 'A' ? 'B' : 'A'
  const wrong = await seen(call(s, 'GET', `/${s.token.slice(0, -1)}${last}/api/session`))
  const first = await seen(call(s, 'GET', `/${s.token[0] === 'A' ? 'B' : 'A'}${s.token.slice(1)}/api/session`))
  const prefix = await seen(call(s, 'GET', `/${s.token.slice(0, 20)}/api/session`))
  for (const r of [none, root, wrong, first, prefix]) {
    assert.equal(r.status, 404)
    assert.equal(r.text(), none.text(), 'every refusal is the same answer')
    assert.doesNotMatch(r.text(), /token/i)
  }
  // A write without the token is refused the same way, before its Origin is looked at.
  const write = await seen(call(s, 'POST', `/${s.token.slice(0, -1)}${last}/api/save`,
    { body: { templateText: '{}' }, headers: { origin: s.origin } }))
  assert.equal(write.status, 404)
})

test('a foreign Host (DNS rebinding) is refused, even with the token', async () => {
  for (const host of [`evil.example:${s.port}`, `127.0.0.1:${s.port + 1}`, '127.0.0.1', `localhost.evil.example:${s.port}`]) {
    const r = await seen(call(s, 'GET', `/${s.token}/api/session`, { headers: { host } }))
    assert.equal(r.status, 421, host)
    assert.doesNotMatch(r.text(), /templateText/)
  }
  for (const host of [`localhost:${s.port}`, `[::1]:${s.port}`]) {
    const r = await seen(call(s, 'GET', `/${s.token}/api/session`, { headers: { host } }))
    assert.equal(r.status, 200, host)
  }
})

test('a write with a foreign Origin, or none, is refused 403; the page\'s own Origin passes', async () => {
  const body = { templateText: '{}' }
  const foreign = await seen(call(s, 'POST', `/${s.token}/api/validate`, { body, headers: { origin: 'http://evil.example' } }))
  const otherPort = await seen(call(s, 'POST', `/${s.token}/api/validate`,
    { body, headers: { origin: `http://127.0.0.1:${s.port + 1}` } }))
  const none = await seen(call(s, 'POST', `/${s.token}/api/validate`, { body }))
  const nullOrigin = await seen(call(s, 'POST', `/${s.token}/api/validate`, { body, headers: { origin: 'null' } }))
  for (const r of [foreign, otherPort, none, nullOrigin]) assert.equal(r.status, 403)
  const own = await seen(post(s, 'validate', body))
  assert.equal(own.status, 200)
  assert.equal(own.json().ok, false)
})

test('every answer carries Referrer-Policy, nosniff and the strict CSP, and no CORS header', async () => {
  const problem = await seen(post(s, 'render', { templateText: 'not json', data: { kind: 'generated' } }))
  assert.equal(problem.status, 422)
  assert.ok(answers.length >= 15)
  for (const r of answers) {
    assert.equal(r.headers['referrer-policy'], 'no-referrer')
    assert.equal(r.headers['x-content-type-options'], 'nosniff')
    const csp = String(r.headers['content-security-policy'])
    for (const d of ["default-src 'self'", "worker-src 'self' blob:", "img-src 'self' blob: data:", "style-src 'self' 'unsafe-inline'"]) {
      assert.ok(csp.includes(d), `${d} in ${csp}`)
    }
    assert.equal(r.headers['access-control-allow-origin'], undefined)
  }
})

test('a --host other than loopback is refused unless --allow-remote; ::1 is loopback', async () => {
  const r = await svc(['studio', invoice, '--host', '0.0.0.0'], { SVC_LOG_LEVEL: 'silent' }, 30_000)
  assert.notEqual(r.code, 0)
  assert.match(r.stderr, /not a loopback address/)
  assert.equal(r.stdout, '')
  const v6 = await startStudio([invoice, '--host', '::1'])
  try {
    assert.match(v6.url, /^http:\/\/\[::1\]:\d+\//)
    const ok = await call(v6, 'GET', `/${v6.token}/api/session`)
    assert.equal(ok.status, 200)
  } finally { await v6.close() }
})

test('assets: only files of the bundle; a path out of dist/studio/web/ is a 404', async () => {
  // The studio's own compiled modules sit next to the bundle (dist/studio/server/): never served.
  for (const path of [`/${s.token}/assets/../server/security.js`, `/${s.token}/assets/../../studio/server/run.js`,
    `/${s.token}/assets/%2e%2e/server/security.js`]) {
    const r = await seen(call(s, 'GET', path))
    assert.equal(r.status, 404, path)
    assert.doesNotMatch(r.text(), /timingSafeEqual/)
  }
})

test('--allow-remote: another --host is served, and its own name passes the Host check', async () => {
  const remote = await startStudio([invoice, '--host', '0.0.0.0', '--allow-remote'])
  try {
    assert.match(remote.url, /^http:\/\/0\.0\.0\.0:\d+\//)
    const own = await call(remote, 'GET', `/${remote.token}/api/session`)
    assert.equal(own.status, 200)
    const loop = await call(remote, 'GET', `/${remote.token}/api/session`, { headers: { host: `127.0.0.1:${remote.port}` } })
    assert.equal(loop.status, 200)
    const foreign = await call(remote, 'GET', `/${remote.token}/api/session`, { headers: { host: `evil.example:${remote.port}` } })
    assert.equal(foreign.status, 421)
  } finally { await remote.close() }
})
