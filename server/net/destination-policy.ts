// Where a tenant's data source may connect: an operator policy (SVC_DATASOURCE_ALLOW / _DENY)
// over the address guard's resolution and judgement. A destination is resolved once and every
// address is judged; the caller then connects to the returned (pinned) address, so a DNS answer
// that changes after the check cannot redirect the connection (DNS rebinding).
import { BlockList, isIP } from 'node:net'
import { AddressRefused, blockedReason, ipv6Bytes, resolveHost } from './address-guard.js'
import type { ResolvedAddress, Resolver } from './address-guard.js'

/** One ALLOW or DENY entry: a CIDR, an IP or a host name (`*.example.com` too), with an optional port. */
export interface DestinationRule { text: string, port?: number, net?: BlockList, host?: string }
export interface DestinationPolicy { allow: DestinationRule[], deny: DestinationRule[] }

/** The service database, which no tenant may reach with a credential that can read its tables. */
export interface ServiceEndpoint { host: string, port: number, user: string }

function canonical (ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, '')
  if (isIP(bare) !== 6) return bare
  const b = ipv6Bytes(bare)
  // b is ipv6Bytes' 16 bytes
  return Array.from({ length: 8 }, (_, i) => ((b[i * 2]! << 8) | b[i * 2 + 1]!).toString(16)).join(':')
}

// Cloud metadata services (AWS/GCP/Azure/OpenStack, AWS IPv6, ECS task metadata, Alibaba, Oracle).
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '169.254.170.2', '100.100.100.200', '192.0.0.192'].map(canonical))
// Of the address guard's categories, the ones a data source may never reach by default; private
// networks stay allowed (databases usually live there).
const DEFAULT_REFUSED = /loopback|link-local|unspecified|multicast|broadcast|not an IP address|scoped/

/** Why the default policy refuses `ip` (rule name first), or undefined. */
export function defaultRefusal (ip: string): string | undefined {
  if (METADATA.has(canonical(ip))) return 'cloud metadata'
  const reason = blockedReason(ip)
  return reason !== undefined && DEFAULT_REFUSED.test(reason) ? reason : undefined
}

/** Parses a comma-separated rule list; answers an error message for the first bad entry. */
export function parseRules (text: string | undefined): DestinationRule[] | string {
  if (text === undefined || text.trim() === '') return []
  const rules: DestinationRule[] = []
  for (const raw of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^(?:\[([^\]]+)\]|([^:/]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*))(?:\/(\d{1,3}))?(?::(\d{1,5}))?$/.exec(raw)
    if (m === null) return `"${raw}": expected a CIDR, an IP or a host name, with an optional :port`
    // One of the two address groups always takes part
    const addr = m[1] ?? m[2] ?? ''
    const port = m[4] === undefined ? undefined : Number(m[4])
    if (port !== undefined && (port < 1 || port > 65535)) return `"${raw}": port out of range`
    const family = isIP(addr)
    if (family === 0) {
      if (m[3] !== undefined || !/^(\*\.)?[a-z0-9]([a-z0-9.-]{0,252})$/i.test(addr)) return `"${raw}": not a host name or CIDR`
      rules.push({ text: raw, port, host: addr.toLowerCase() })
      continue
    }
    const prefix = m[3] === undefined ? (family === 4 ? 32 : 128) : Number(m[3])
    if (prefix > (family === 4 ? 32 : 128)) return `"${raw}": prefix too long`
    const net = new BlockList()
    net.addSubnet(addr, prefix, family === 4 ? 'ipv4' : 'ipv6')
    rules.push({ text: raw, port, net })
  }
  return rules
}

const isLoopbackOrAny = (ip: string): boolean => /^(loopback|unspecified)|mapped (loopback|unspecified)/.test(blockedReason(ip) ?? '')

/** The same server: same port and address, where every loopback or unspecified address counts as one. */
function sameEndpoint (a: string, b: string): boolean {
  return canonical(unmapped(a)) === canonical(unmapped(b)) || (isLoopbackOrAny(a) && isLoopbackOrAny(b))
}

/** A wildcard host rule (`*.example.com`) names no set of addresses: it matches names as written. */
const wildcard = (rule: DestinationRule): boolean => rule.host?.startsWith('*.') === true

function nameMatches (rule: DestinationRule, host: string, port: number): boolean {
  if (rule.host === undefined || (rule.port !== undefined && rule.port !== port)) return false
  const h = host.toLowerCase()
  return wildcard(rule) ? h.endsWith(rule.host.slice(1)) : h === rule.host
}

/**
 * Whether `rule` covers `ip`:`port`. A CIDR/IP rule by its network (IPv4-mapped IPv6 forms count
 * as their IPv4 address); an exact host rule by the addresses its own host resolves to (`own`), so
 * `127.1`, `2130706433` or another name of the same server is the same destination — for DENY,
 * every loopback or unspecified address is one server (as for the service-database rule); for
 * ALLOW only the rule's own addresses are exempt; a wildcard rule by the name as written.
 */
function covers (rule: DestinationRule, dest: DestinationCheck, ip: string, own: ResolvedAddress[] | undefined,
  deny: boolean): boolean {
  if (rule.port !== undefined && rule.port !== dest.port) return false
  if (rule.host !== undefined) {
    if (wildcard(rule)) return nameMatches(rule, dest.host, dest.port)
    const same = (o: ResolvedAddress): boolean =>
      deny ? sameEndpoint(o.address, ip) : canonical(unmapped(o.address)) === canonical(unmapped(ip))
    return own?.some(same) === true
  }
  const family = isIP(ip)
  return rule.net?.check(ip, family === 6 ? 'ipv6' : 'ipv4') === true
}

/** `::ffff:a.b.c.d` → `a.b.c.d`; any other address unchanged. */
function unmapped (ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, '')
  if (isIP(bare) !== 6) return bare
  const b = ipv6Bytes(bare)
  return b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff ? `${b[12]}.${b[13]}.${b[14]}.${b[15]}` : bare
}

/**
 * The addresses of the exact host rules that apply to `port`, resolved now (with the same resolver
 * as the destination). A DENY rule that does not resolve refuses the destination: an operator's
 * refusal is never skipped; an ALLOW rule that does not resolve exempts nothing.
 */
async function ruleAddresses (policy: DestinationPolicy, dest: DestinationCheck,
  resolver: Resolver): Promise<Map<DestinationRule, ResolvedAddress[]>> {
  const own = new Map<DestinationRule, ResolvedAddress[]>()
  const exact = (r: DestinationRule): boolean =>
    r.host !== undefined && !wildcard(r) && (r.port === undefined || r.port === dest.port)
  await Promise.all([...policy.deny.filter(exact).map(async (r) => {
    try {
      own.set(r, await resolveHost(r.host as string, resolver))
    } catch (err) {
      if (!(err instanceof AddressRefused)) throw err
      throw new AddressRefused(dest.host,
        `SVC_DATASOURCE_DENY rule "${r.text}" ${err.reason}: every destination on port ${dest.port} is refused until it resolves`)
    }
  }), ...policy.allow.filter(exact).map(async (r) => {
    own.set(r, await resolveHost(r.host as string, resolver).catch(() => []))
  })])
  return own
}

export interface DestinationCheck { host: string, port: number, user?: string }

/**
 * Resolves and judges a destination: DENY rules first (a host rule by name as written, before
 * resolution, and by its own addresses after), then ALLOW rules, then the default refusals; then
 * the service-database rule. Answers the address to connect to (the first
 * answer; all were judged). Throws AddressRefused naming the rule and the address.
 */
export async function checkDestination (dest: DestinationCheck, policy: DestinationPolicy, resolver: Resolver,
  service?: { endpoint: ServiceEndpoint, addresses: () => Promise<ResolvedAddress[]> }): Promise<ResolvedAddress> {
  // A denied name is refused before (and whether or not) it resolves.
  const named = policy.deny.find((r) => nameMatches(r, dest.host, dest.port))
  if (named !== undefined) {
    throw new AddressRefused(dest.host, `${dest.host} port ${dest.port} is refused by ` +
    `SVC_DATASOURCE_DENY rule "${named.text}"`)
  }
  const addresses = await resolveHost(dest.host, resolver)
  const own = await ruleAddresses(policy, dest, resolver)
  for (const { address } of addresses) {
    const at = `${address} port ${dest.port}`
    const denied = policy.deny.find((r) => covers(r, dest, address, own.get(r), true))
    if (denied !== undefined) {
      throw new AddressRefused(dest.host, `${at} is refused by SVC_DATASOURCE_DENY rule "${denied.text}"`)
    }
    if (policy.allow.some((r) => covers(r, dest, address, own.get(r), false))) continue
    const reason = defaultRefusal(address)
    if (reason !== undefined) {
      throw new AddressRefused(dest.host, `${at} is a ${reason} address, refused by default ` +
        `(rule "${reason}"; an operator may allow it with SVC_DATASOURCE_ALLOW)`)
    }
  }
  if (service !== undefined && dest.port === service.endpoint.port && dest.user !== undefined &&
    (dest.user === service.endpoint.user || dest.user === 'root')) {
    const own = await service.addresses()
    const hit = addresses.find((a) => own.some((o) => sameEndpoint(a.address, o.address)))
    if (hit !== undefined) {
      throw new AddressRefused(dest.host, `${hit.address} port ${dest.port} is the service database and user "${dest.user}" ` +
        'may read its tables (rule "service-database": use a read-only user of your own data)')
    }
  }
  return addresses[0]
}
