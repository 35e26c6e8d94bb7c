// The SSRF guard: refused registrations (≥ 20 reserved targets in v4, v6 and embedded forms, and
// names that resolve inside), and the send-time check that defeats DNS rebinding.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { isProblem } from '../../../server/errors.js'
import { blockedReason, checkHost } from '../../../server/net/address-guard.js'
import type { ResolvedAddress, Resolver } from '../../../server/net/address-guard.js'
import { guardedLookup } from '../../../server/webhooks/sender.js'
import { createWebhooksService } from '../../../server/services/webhooks.js'
import { generateSecret } from '../../../server/webhooks/signature.js'
import { kit, makeCert, startReceiver, waitFor } from './helpers.js'
import type { Cert, Kit } from './helpers.js'

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 })
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 })

/** Names answer from this table; anything else fails like NXDOMAIN. No query leaves the process. */
function tableResolver (table: Record<string, ResolvedAddress[]>): Resolver & { calls: string[] } {
  const calls: string[] = []
  const fn = async (name: string): Promise<ResolvedAddress[]> => {
    calls.push(name)
    const answer = table[name]

    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
    return answer
  }
  return Object.assign(fn, { calls })
}

const REFUSED_LITERALS = [
  '127.0.0.1', '127.255.255.254', '0x7f.1', '2130706433', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1',
  '169.254.169.254', '100.64.0.1', '100.127.255.254', '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1',
  '192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '198.19.255.1', '192.0.0.8', '192.88.99.1',
  '[::1]', '[::]', '[fc00::1]', '[fd12:3456::1]', '[fe80::1]', '[febf::1]', '[fec0::1]', '[ff02::1]', '[ff0e::1]',
  '[::ffff:127.0.0.1]', '[::ffff:10.0.0.1]', '[::ffff:169.254.169.254]', '[::127.0.0.1]',
  '[64:ff9b::7f00:1]', '[64:ff9b::a00:1]', '[64:ff9b:1::1]', '[2002:7f00:1::1]', '[2002:c0a8:101::1]',
  '[2001:db8::1]', '[2001::1]', '[3fff::1]', '[100::1]'
]

describe('address guard (pure)', () => {
  test('every reserved literal is refused, with a reason', () => {
    for (const host of REFUSED_LITERALS) {
      const parsed = new URL(`https://${host}/`).hostname
      assert.notEqual(blockedReason(parsed), undefined, host)
    }
  })
  test('public unicast is allowed, also embedded in mapped, NAT64 and 6to4 forms', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '11.0.0.1', '192.169.0.1',
      '2606:2800:220:1:248:1893:25c8:1946', '2a00:1450:4001::1', '::ffff:93.184.216.34', '64:ff9b::808:808', '2002:5db8:d822::1']) {
      assert.equal(blockedReason(ip), undefined, ip)
    }
  })
  test('one private answer among public ones is enough to refuse; allowPrivate lifts the check', async () => {
    const r = tableResolver({ 'dual.test': [v4('93.184.216.34'), v6('fd00::5')] })
    await assert.rejects(checkHost('dual.test', r, false), /fd00::5.*unique-local/)
    assert.equal((await checkHost('dual.test', r, true)).length, 2)
    await assert.rejects(checkHost('nowhere.test', r, false), /does not resolve/)
  })
  test('the connect lookup hands the socket only the one checked address', async () => {
    const lookup = guardedLookup(tableResolver({ 'multi.test': [v4('93.184.216.34'), v4('93.184.216.35')], 'bad.test': [v4('10.1.2.3')] }), false)
    const all = await new Promise<unknown>((resolve, reject) => lookup('multi.test', { all: true }, (err, addr) => { if (err !== null) reject(err); else resolve(addr) }))
    assert.deepEqual(all, [{ address: '93.184.216.34', family: 4 }])
    const one = await new Promise<unknown>((resolve, reject) => lookup('multi.test', {}, (err, addr, family) => { if (err !== null) reject(err); else resolve([addr, family]) }))
    assert.deepEqual(one, ['93.184.216.34', 4])
    await assert.rejects(new Promise((resolve, reject) => lookup('bad.test', { all: true }, (err, addr) => { if (err !== null) reject(err); else resolve(addr) })), /private/)
  })
})

describe('registration and send-time checks', () => {
  let cert: Cert
  let k: Kit
  before(async () => { cert = await makeCert(); k = await kit({ SVC_WEBHOOKS_ALLOW_PRIVATE: 'false' }, cert) })
  after(async () => { await k.close() })

  const resolver = tableResolver({
    'internal.test': [v4('127.0.0.1')],
    'metadata.test': [v4('169.254.169.254')],
    'dual.test': [v4('93.184.216.34'), v4('192.168.0.10')],
    'public.test': [v4('93.184.216.34')],
    'v6public.test': [v6('2606:2800:220:1:248:1893:25c8:1946')]
  })

  test('≥ 20 refused targets: reserved v4/v6 literals, localhost, names resolving inside, non-https', async () => {
    const svc = createWebhooksService(
      {
        db: k.tdb.db,
        box: k.ctx.box,
        config: k.config,
        repos: k.ctx.repos,
        outbox: k.ctx.services.outbox,
        newSecret: generateSecret
      },
      { resolver }
    )
    const systemSvc = k.ctx.services.webhooks // the real resolver: localhost comes from /etc/hosts
    const targets = [...REFUSED_LITERALS.map((h) => `https://${h}/hook`), 'https://internal.test/hook', 'https://metadata.test/x', 'https://dual.test/x']
    let refused = 0
    for (const url of targets) {
      await assert.rejects(svc.create({ workspaceId: k.workspaceId, url, events: ['document.generated'] }),
        (err: unknown) => isProblem(err) && err.code === 'WEBHOOK_URL_REFUSED' && err.status === 422, url)
      refused++
    }
    await assert.rejects(systemSvc.create({ workspaceId: k.workspaceId, url: 'https://localhost:8443/hook', events: ['document.generated'] }),
      (err: unknown) => isProblem(err) && err.code === 'WEBHOOK_URL_REFUSED' && /loopback/.test(err.message))
    refused++
    for (const url of ['http://public.test/hook', 'ftp://public.test/', 'https://user:pw@public.test/hook']) {
      await assert.rejects(svc.create({ workspaceId: k.workspaceId, url, events: ['document.generated'] }), (err: unknown) => isProblem(err) && err.code === 'WEBHOOK_URL_REFUSED', url)
      refused++
    }
    assert.ok(refused >= 20)
    // Nothing was stored.
    assert.deepEqual(await svc.list(k.workspaceId), [])
    // Public targets are accepted (nothing is contacted at registration).
    for (const url of ['https://public.test/hook', 'https://v6public.test:8443/h?x=1', 'https://93.184.216.34/hook', 'https://[2606:2800:220:1:248:1893:25c8:1946]/h']) {
      const e = await svc.create({ workspaceId: k.workspaceId, url, events: ['document.generated'] })
      await svc.delete(k.workspaceId, e.id)
    }
  })

  test('DNS rebinding: public at registration, private at send → refused at send, nothing reaches the private address', async () => {
    const rx = await startReceiver(cert)
    try {
      let phase: 'register' | 'send' = 'register'
      const calls: string[] = []
      const rebinding: Resolver = async (name) => {
        calls.push(`${phase}:${name}`)
        return phase === 'register' ? [v4('93.184.216.34')] : [v4('127.0.0.1')]
      }
      const svc = createWebhooksService(
        {
          db: k.tdb.db,
          box: k.ctx.box,
          config: k.config,
          repos: k.ctx.repos,
          outbox: k.ctx.services.outbox,
          newSecret: generateSecret
        },
        { resolver: rebinding }
      )
      const ep = await svc.create({ workspaceId: k.workspaceId, url: `https://localhost:${rx.port}/hooks`, events: ['document.generated'] })
      phase = 'send'
      const d = k.dispatcher({ resolver: rebinding })
      d.start()
      await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.generated', data: {} })
      const failed = await waitFor('refused attempt', async () => (await svc.deliveries(k.workspaceId, ep.id, { status: 'failed' }))[0])
      assert.match(String(failed.lastError), /refused: .*127\.0\.0\.1.*loopback/)
      assert.equal(failed.lastHttpStatus, null)
      assert.equal(rx.received.length, 0)
      assert.ok(calls.includes('send:localhost'), 'resolved again at send time')
      await d.close()
      await svc.delete(k.workspaceId, ep.id)
    } finally { await rx.close() }
  })

  test('an IP literal endpoint stored earlier is refused at send time too', async () => {
    const rx = await startReceiver(cert)
    try {
      const lax = createWebhooksService({
        db: k.tdb.db,
        box: k.ctx.box,
        config: { ...k.config, webhooks: { ...k.config.webhooks, allowPrivate: true } },
        repos: k.ctx.repos,
        outbox: k.ctx.services.outbox,
        newSecret: generateSecret
      })
      const ep = await lax.create({ workspaceId: k.workspaceId, url: rx.url, events: ['document.failed'] })
      const d = k.dispatcher()
      d.start()
      await k.ctx.services.outbox.append(k.tdb.db, { workspaceId: k.workspaceId, type: 'document.failed', data: {} })
      const failed = await waitFor('refused attempt', async () => (await lax.deliveries(k.workspaceId, ep.id, { status: 'failed' }))[0])
      assert.match(String(failed.lastError), /refused/)
      assert.equal(rx.received.length, 0)
      await d.close()
      // Control: the same delivery goes through when private targets are allowed, via a name
      // resolved by the injected resolver (the Agent's lookup is really used).
      const lookups: string[] = []
      const d2 = k.dispatcher({ resolver: async (n) => { lookups.push(n); return [v4('127.0.0.1')] } }, { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' })
      await k.tdb.db.query('UPDATE webhook_endpoints SET url = ? WHERE id = ?', [`https://localhost:${rx.port}/hooks`, ep.id])
      await k.tdb.db.query('UPDATE webhook_deliveries SET next_attempt_at = UTC_TIMESTAMP(3) WHERE endpoint_id = ?', [ep.id])
      d2.start()
      await waitFor('delivered', () => rx.received.length === 1)
      assert.deepEqual([...new Set(lookups)], ['localhost'])
      await d2.close()
    } finally { await rx.close() }
  })
})
