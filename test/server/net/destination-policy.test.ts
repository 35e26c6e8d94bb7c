// The data-source destination policy: rule syntax, DENY before ALLOW before the default refusals,
// ports, IPv4 forms inside IPv6, and the service-database rule. Resolution is injected.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkDestination, defaultRefusal, parseRules } from '../../../server/net/destination-policy.js'
import type { DestinationPolicy } from '../../../server/net/destination-policy.js'
import type { Resolver } from '../../../server/net/address-guard.js'

const answers: Record<string, string[]> = { 'db.example.com': ['203.0.113.10'], 'inside.example.com': ['10.1.2.3'], 'loop.example.com': ['127.0.0.9'] }
const resolver: Resolver = async (host) => {
  const a = answers[host]

  if (a === undefined) throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' })
  return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}
function policy (allow = '', deny = ''): DestinationPolicy {
  const a = parseRules(allow)
  const d = parseRules(deny)
  assert.ok(typeof a !== 'string' && typeof d !== 'string')
  return { allow: a, deny: d }
}
const check = (host: string, port: number, p: DestinationPolicy, user = 'reader'): Promise<unknown> => checkDestination({ host, port, user }, p, resolver)

test('rule syntax: CIDRs, IPs, names, wildcards, ports, bracketed IPv6; bad entries are named', () => {
  const rules = parseRules('10.0.0.0/8, 127.0.0.1:3307, db.example.com, *.corp.example:3306, [fd00::1]:3306, fd00::/8')
  assert.ok(typeof rules !== 'string')
  assert.deepEqual(rules.map((r) => [r.text, r.port, r.host]), [
    ['10.0.0.0/8', undefined, undefined], ['127.0.0.1:3307', 3307, undefined], ['db.example.com', undefined, 'db.example.com'],
    ['*.corp.example:3306', 3306, '*.corp.example'], ['[fd00::1]:3306', 3306, undefined], ['fd00::/8', undefined, undefined]])
  assert.match(parseRules('10.0.0.0/40') as string, /prefix too long/)
  assert.match(parseRules('db.example.com:99999') as string, /port out of range/)
  assert.match(parseRules('not a host') as string, /"not a host"/)
})

test('default refusals: loopback, link-local, metadata, unspecified, multicast, and their IPv6-embedded forms; private networks pass', () => {
  for (const [ip, rule] of [['127.0.0.2', 'loopback'], ['::1', 'loopback'], ['169.254.169.254', 'cloud metadata'], ['fd00:ec2::254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'], ['fe80::1', 'link-local'], ['0.0.0.0', 'unspecified'], ['::', 'unspecified'], ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'], ['::ffff:127.0.0.1', 'loopback']] as const) {
    assert.match(String(defaultRefusal(ip)), new RegExp(rule), ip)
  }
  for (const ip of ['10.1.2.3', '192.168.1.1', '203.0.113.10', 'fd12::1']) assert.equal(defaultRefusal(ip), undefined, ip)
})

test('DENY first, then ALLOW (with its port), then the defaults; names are judged by their addresses', async () => {
  await assert.rejects(check('loop.example.com', 3306, policy()), /loop\.example\.com: 127\.0\.0\.9 port 3306 is a loopback address/)
  assert.ok(await check('127.0.0.1', 3307, policy('127.0.0.1:3307')))
  await assert.rejects(check('127.0.0.1', 3306, policy('127.0.0.1:3307')), /loopback/)
  assert.ok(await check('inside.example.com', 3306, policy()))
  await assert.rejects(check('inside.example.com', 3306, policy('', '10.0.0.0/8')), /SVC_DATASOURCE_DENY rule "10\.0\.0\.0\/8"/)
  await assert.rejects(check('127.0.0.1', 3307, policy('127.0.0.0/8', '127.0.0.1')), /DENY rule "127\.0\.0\.1"/)
  // A denied name is refused even when it does not resolve; an unknown name is "unresolved".
  await assert.rejects(check('gone.example.com', 3306, policy('', '*.example.com')), /DENY rule "\*\.example\.com"/)
  await assert.rejects(check('gone.example.org', 3306, policy()), (err: { unresolved?: boolean }) => err.unresolved === true)
})

test('the service database\'s endpoint is refused to its user and to root, on any loopback address; other users pass', async () => {
  const service = { endpoint: { host: '127.0.0.1', port: 3307, user: 'svc' }, addresses: async () => [{ address: '127.0.0.1', family: 4 as const }] }
  const open = policy('127.0.0.0/8')
  await assert.rejects(checkDestination({ host: '127.0.0.1', port: 3307, user: 'svc' }, open, resolver, service), /rule "service-database"/)
  await assert.rejects(checkDestination({ host: 'loop.example.com', port: 3307, user: 'root' }, open, resolver, service), /service-database/)
  assert.ok(await checkDestination({ host: '127.0.0.1', port: 3307, user: 'demo_prod_ro' }, open, resolver, service))
  assert.ok(await checkDestination({ host: '127.0.0.1', port: 3308, user: 'svc' }, open, resolver, service))
})

test('host rules match the addresses their own host resolves to: DENY refuses every name and form of that server', async () => {
  const p = policy('127.0.0.0/8', 'loop.example.com:3306')
  // loop.example.com is 127.0.0.9: the same server (loopback) by any other name or form.
  for (const host of ['127.0.0.9', '127.0.0.1', '[::ffff:127.0.0.9]', '::1']) {
    await assert.rejects(check(host, 3306, p), /SVC_DATASOURCE_DENY rule "loop\.example\.com:3306"/, host)
  }
  assert.ok(await check('127.0.0.9', 3307, p), 'another port')
  // A non-loopback address is matched exactly, also IPv4-mapped.
  const inside = policy('', 'inside.example.com')
  await assert.rejects(check('10.1.2.3', 3306, inside), /DENY rule "inside\.example\.com"/)
  await assert.rejects(check('::ffff:10.1.2.3', 3306, inside), /DENY rule "inside\.example\.com"/)
  assert.ok(await check('10.1.2.4', 3306, inside))
  // A DENY rule whose host does not resolve refuses rather than being skipped.
  await assert.rejects(check('10.1.2.4', 3306, policy('', 'gone.example.com')), /rule "gone\.example\.com" does not resolve/)
})

test('an ALLOW host rule exempts only its own host\'s addresses, not whatever the destination name resolves to', async () => {
  assert.ok(await check('127.0.0.9', 3306, policy('loop.example.com')), 'its address, written as an IP')
  await assert.rejects(check('127.0.0.8', 3306, policy('loop.example.com')), /loopback/)
  // The same name answering differently for the tenant's lookup (rebinding): not exempt.
  let calls = 0
  const rebinding: Resolver = async (host) => {
    calls++
    return [{ address: host === 'loop.example.com' && calls === 1 ? '169.254.169.254' : '127.0.0.9', family: 4 }]
  }
  await assert.rejects(checkDestination({ host: 'loop.example.com', port: 3306 }, policy('loop.example.com'), rebinding), /169\.254\.169\.254 .*cloud metadata/)
  // A wildcard rule names no addresses: it still matches names as written.
  assert.ok(await check('loop.example.com', 3306, policy('*.example.com')))
})
