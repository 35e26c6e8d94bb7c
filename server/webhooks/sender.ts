// Sends one signed POST through ONE shared undici Agent. The Agent's connect.lookup resolves the
// host, checks every address with the SSRF guard and hands the socket only the checked address,
// so the name is judged at send time and cannot be re-resolved to somewhere else between check
// and connect (DNS rebinding). TLS still verifies the certificate against the host name.
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { createSecureContext, rootCertificates } from 'node:tls'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { Agent } from 'undici'
import { AddressRefused, blockedReason, checkHost, systemResolver } from '../net/address-guard.js'
import type { Resolver } from '../net/address-guard.js'

export const EXCERPT_BYTES = 1024
// Past this the rest of an answer is not read: the connection is dropped instead.
const DRAIN_LIMIT = 64 * 1024

export interface SendResult {
  ok: boolean
  httpStatus: number | null
  excerpt: string | null
  error: string | null
  durationMs: number
}

export interface SenderOptions {
  timeoutMs: number
  allowPrivate: boolean
  caFile?: string
  resolver?: Resolver
  /** Sockets per origin. */
  connections?: number
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

export function guardedLookup (resolver: Resolver, allowPrivate: boolean) {
  return function lookup (hostname: string, options: LookupOptions, callback: LookupCallback): void {
    checkHost(hostname, resolver, allowPrivate).then((addresses) => {
      // Only the first checked address is offered; the socket cannot fall back to another answer.
      const wanted =
        options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses
      const chosen = wanted[0] ?? addresses[0]
      if (options.all === true) callback(null, [{ address: chosen.address, family: chosen.family }])
      else callback(null, chosen.address, chosen.family)
    }, (err: Error) => {
      const e = err as NodeJS.ErrnoException
      e.code ??= 'EWEBHOOKREFUSED'
      callback(e, '')
    })
  }
}

export interface Sender {
  agent: Agent
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>
  close(): Promise<void>
  destroy(): Promise<void>
}

export function createSender (options: SenderOptions): Sender {
  // Built once: passing `ca` to every connect would parse the whole root store per connection.
  const secureContext = options.caFile === undefined ? undefined : createSecureContext({ ca: [...rootCertificates, readFileSync(options.caFile, 'utf8')] })
  const agent = new Agent({
    connect: {
      timeout: options.timeoutMs,
      secureContext,
      lookup: guardedLookup(options.resolver ?? systemResolver, options.allowPrivate)
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: options.connections ?? 32,
    keepAliveTimeout: 4000
  })
  // A whole attempt (connect, answer, body) ends within this, whatever the receiver does.
  const deadlineMs = 2 * options.timeoutMs

  return {
    agent,
    async send (url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
      const started = performance.now()
      const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) })
      try {
        const target = new URL(url)
        // An IP literal never reaches `lookup`: judge it here.
        const host = target.hostname.replace(/^\[|\]$/g, '')
        if (!options.allowPrivate && isIP(host) !== 0) {
          const reason = blockedReason(host)
          if (reason !== undefined) throw new AddressRefused(target.hostname, `${host} is a ${reason} address`)
        }
        const res = await agent.request({
          origin: target.origin,
          path: target.pathname + target.search,
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(deadlineMs)
        })
        // Always consume the answer (keeps the socket reusable); keep only the first KiB.
        const kept: Buffer[] = []
        let keptBytes = 0
        let total = 0
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          if (keptBytes < EXCERPT_BYTES) {
            const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes)
            kept.push(part)
            keptBytes += part.length
          }
          total += chunk.length
          if (total > DRAIN_LIMIT) { res.body.destroy(); break }
        }
        const excerpt = keptBytes === 0 ? null : Buffer.concat(kept).toString('utf8').replace(/\uFFFD+$/, '')
        const ok = res.statusCode >= 200 && res.statusCode < 300
        return done({ ok, httpStatus: res.statusCode, excerpt, error: ok ? null : `HTTP ${res.statusCode}` })
      } catch (err) {
        return done({ ok: false, httpStatus: null, excerpt: null, error: describe(err) })
      }
    },
    async close (): Promise<void> { await agent.close() },
    async destroy (): Promise<void> { await agent.destroy() }
  }
}

function describe (err: unknown): string {
  const e = err as Partial<NodeJS.ErrnoException> & { cause?: unknown }
  if (e instanceof AddressRefused || (e.cause instanceof AddressRefused)) {
    const refused = (e instanceof AddressRefused ? e : e.cause) as AddressRefused
    return `refused: ${refused.message}`.slice(0, 1000)
  }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timeout: no complete answer in time'
  const code = e.code === undefined ? '' : `${e.code}: `
  return `${code}${e.message ?? String(err)}`.slice(0, 1000)
}
