// Address guard: which IP addresses an outbound connection may reach. Webhooks may only reach a public unicast
// address (checked at registration and again at send time on every address the name resolves to; the
// connection is then made to the checked address, so a DNS answer that changes in between cannot redirect
// us inside). Data sources use the same resolution and judgement under their own policy (destination-policy.ts).
import { BlockList, isIP, isIPv4 } from 'node:net'
import { lookup } from 'node:dns/promises'

export interface ResolvedAddress { address: string, family: 4 | 6 }
/** Resolves a host name to all its addresses; injected so tests can swap the answers. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) => {
  const all = await lookup(hostname, { all: true, verbatim: true })
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

// IANA special-purpose IPv4 ranges that are not globally reachable unicast.
const V4_BLOCKED: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast']
]

// Inside global unicast 2000::/3, the parts that are not a public host.
const V6_BLOCKED_IN_GLOBAL: Array<[string, number, string]> = [
  ['2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation']
]

const v4Lists = V4_BLOCKED.map(([net, prefix, reason]) => {
  const list = new BlockList()
  list.addSubnet(net, prefix, 'ipv4')
  return { list, reason }
})
const v6Lists = V6_BLOCKED_IN_GLOBAL.map(([net, prefix, reason]) => {
  const list = new BlockList()
  list.addSubnet(net, prefix, 'ipv6')
  return { list, reason }
})

/** Expands an IPv6 text (with `::` and an optional dotted-quad tail) to 16 bytes. */
export function ipv6Bytes (text: string): Uint8Array {
  let s = text.replace(/^\[|\]$/g, '')
  const bytes = new Uint8Array(16)
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)?.[1]
  if (dotted !== undefined) {
    const [q0 = 0, q1 = 0, q2 = 0, q3 = 0] = dotted.split('.').map(Number)
    s = s.slice(0, -dotted.length) + ((q0 << 8) | q1).toString(16) + ':' + ((q2 << 8) | q3).toString(16)
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined]
  const h = head === '' ? [] : head.split(':')
  const t = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t]
  groups.forEach((g, i) => { const v = parseInt(g, 16); bytes[i * 2] = v >> 8; bytes[i * 2 + 1] = v & 0xff })
  return bytes
}

const v4From = (b: Uint8Array, at: number): string => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`
const zeros = (b: Uint8Array, from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0)

function v4Reason (ip: string): string | undefined {
  for (const { list, reason } of v4Lists) if (list.check(ip, 'ipv4')) return reason
  return undefined
}

/** Why an IP address may not be a webhook target, or undefined when it is public unicast. */
export function blockedReason (ip: string): string | undefined {
  const bare = ip.replace(/^\[|\]$/g, '')
  if (isIPv4(bare)) return v4Reason(bare)
  if (isIP(bare.split('%')[0] ?? '') !== 6) return 'not an IP address'
  if (bare.includes('%')) return 'scoped (zone) address'
  const b = ipv6Bytes(bare)
  // Forms that embed an IPv4 address are judged by that address.
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return prefixed('IPv4-mapped', v4Reason(v4From(b, 12)))
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12)) return prefixed('NAT64', v4Reason(v4From(b, 12)))
  if (b[0] === 0x20 && b[1] === 0x02) return prefixed('6to4', v4Reason(v4From(b, 2)))
  // Everything outside global unicast 2000::/3: ::, ::1, ::/96 compat, 100::/64, 64:ff9b:1::/48,
  // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast.
  if ((b[0]! & 0xe0) !== 0x20) return v6Outside(b)
  for (const { list, reason } of v6Lists) if (list.check(bare, 'ipv6')) return reason
  return undefined
}

function prefixed (form: string, reason: string | undefined): string | undefined {
  return reason === undefined ? undefined : `${form} ${reason}`
}

function v6Outside (b: Uint8Array): string {
  if (zeros(b, 0, 15) && b[15] === 0) return 'unspecified'
  if (zeros(b, 0, 15) && b[15] === 1) return 'loopback'
  // b is ipv6Bytes' 16 bytes
  if ((b[0]! & 0xfe) === 0xfc) return 'unique-local (private)'
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local'
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'site-local'
  if (b[0] === 0xff) return 'multicast'
  return 'reserved (not global unicast)'
}

export class AddressRefused extends Error {
  /** `unresolved`: the name had no answer (nothing was judged). */
  constructor (readonly host: string, readonly reason: string, readonly unresolved = false) {
    super(`${host}: ${reason}`)
    this.name = 'AddressRefused'
  }
}

/** At least one address: an empty answer is refused. */
export type ResolvedAddresses = [ResolvedAddress, ...ResolvedAddress[]]

/** Resolves `hostname` (an IP literal is taken as is) to all its addresses; AddressRefused when it does not resolve. */
export async function resolveHost (hostname: string, resolver: Resolver): Promise<ResolvedAddresses> {
  const bare = hostname.replace(/^\[|\]$/g, '')
  const literal = isIP(bare)
  if (literal !== 0) return [{ address: bare, family: literal === 6 ? 6 : 4 }]
  let addresses: ResolvedAddress[]
  try {
    addresses = await resolver(bare)
  } catch (err) {
    throw new AddressRefused(hostname, `does not resolve (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`, true)
  }
  const [first, ...rest] = addresses
  if (first === undefined) throw new AddressRefused(hostname, 'does not resolve', true)
  return [first, ...rest]
}

/**
 * Resolves `hostname` and checks every address. Returns the checked addresses; throws
 * AddressRefused when any is not public (one bad answer is enough: a client would pick among
 * them). `allowPrivate` lifts the check (local development only).
 */
export async function checkHost (
  hostname: string,
  resolver: Resolver,
  allowPrivate: boolean
): Promise<ResolvedAddresses> {
  const addresses = await resolveHost(hostname, resolver)
  if (allowPrivate) return addresses
  for (const a of addresses) {
    const reason = blockedReason(a.address)
    if (reason !== undefined) throw new AddressRefused(hostname, `resolves to ${a.address}, a ${reason} address`)
  }
  return addresses
}
