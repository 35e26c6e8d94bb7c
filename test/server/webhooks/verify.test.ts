// The receiver helper exported as `svc/webhooks`, checked against signatures made here by hand.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { verifyWebhook } from '../../../server/webhooks/verify.js'

const secret = 'whsec_' + 'k'.repeat(32)
const body = Buffer.from('{"id":"e1","type":"webhook.test","data":{"x":"ü"}}', 'utf8')
const now = 1_800_000_000_000
const t = Math.floor(now / 1000)
const sign = (key: string, ts: number, raw: Buffer): string => createHmac('sha256', key).update(`${ts}.`).update(raw).digest('hex')

test('a correct signature verifies, Buffer or string body', () => {
  const header = `t=${t}, v1=${sign(secret, t, body)}`
  assert.deepEqual(verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret], now }), {
    ok: true,
    timestamp: t
  })
  assert.equal(verifyWebhook({ rawBody: body.toString('utf8'), signatureHeader: header, secrets: [secret], now }).ok, true)
})

test('any of several secrets during a rotation; a wrong one fails', () => {
  const old = 'whsec_' + 'o'.repeat(32)
  const header = `t=${t}, v1=${sign(old, t, body)}`
  assert.equal(verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret, old], now }).ok, true)
  assert.deepEqual(verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret], now }), { ok: false, reason: 'no-matching-signature' })
})

test('a changed body, a changed timestamp, the secret without its prefix all fail', () => {
  const header = `t=${t}, v1=${sign(secret, t, body)}`
  assert.equal(verifyWebhook({ rawBody: Buffer.concat([body, Buffer.from(' ')]), signatureHeader: header, secrets: [secret], now }).ok, false)
  assert.equal(verifyWebhook({ rawBody: body, signatureHeader: `t=${t + 1}, v1=${sign(secret, t, body)}`, secrets: [secret], now }).ok, false)
  assert.equal(verifyWebhook({ rawBody: body, signatureHeader: `t=${t}, v1=${sign(secret.slice(6), t, body)}`, secrets: [secret], now }).ok, false)
})

test('5-minute tolerance both ways', () => {
  for (const [ts, ok] of [[t - 300, true], [t + 300, true], [t - 301, false], [t + 301, false]] as const) {
    const r = verifyWebhook({ rawBody: body, signatureHeader: `t=${ts}, v1=${sign(secret, ts, body)}`, secrets: [secret], now })
    assert.equal(r.ok, ok, String(ts - t))
    if (!r.ok) assert.equal(r.reason, 'timestamp-out-of-tolerance')
  }
  assert.equal(verifyWebhook({ rawBody: body, signatureHeader: `t=${t - 30}, v1=${sign(secret, t - 30, body)}`, secrets: [secret], now, toleranceSeconds: 10 }).ok, false)
})

test('missing or malformed headers', () => {
  const v1 = sign(secret, t, body)
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'missing-header'], ['', 'missing-header'], ['garbage', 'malformed-header'], [`v1=${v1}`, 'malformed-header'],
    [`t=${t}`, 'malformed-header'], [`t=abc, v1=${v1}`, 'malformed-header'], [`t=${t}, v1=${v1.toUpperCase()}`, 'malformed-header'],
    [`t=${t}, v1=${v1.slice(2)}`, 'malformed-header']
  ]
  for (const [header, reason] of cases) {
    assert.deepEqual(
      verifyWebhook({ rawBody: body, signatureHeader: header, secrets: [secret], now }),
      { ok: false, reason },
      String(header)
    )
  }
  assert.deepEqual(verifyWebhook({ rawBody: body, signatureHeader: `t=${t}, v1=${v1}`, secrets: [], now }), { ok: false, reason: 'no-secrets' })
  // An extra unknown scheme is ignored; a second v1 may carry the match.
  assert.equal(verifyWebhook({ rawBody: body, signatureHeader: `t=${t}, v0=abc, v1=${'0'.repeat(64)}, v1=${v1}`, secrets: [secret], now }).ok, true)
})
