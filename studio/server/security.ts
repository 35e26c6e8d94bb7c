// The studio's guard, checked before anything else on every request: it serves a template editor
// from a process that can publish to a workspace, on a machine other users may share.
// - the per-run token in the path (32 random bytes), compared in constant time: another local
//   user or a page that guesses the port gets a bare 404, with nothing that tells it why;
// - the Host header is the loopback name and port we listen on: a DNS-rebinding page (a foreign
//   name resolving to 127.0.0.1) has its own Host and is refused (421);
// - every write carries the page's own Origin: a cross-site form post or fetch is refused (403);
// - the headers every answer carries (no referrer leaks the token, nothing is sniffed, a strict CSP).
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'self'; worker-src 'self' blob:; img-src 'self' blob: data:; " +
    "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'cache-control': 'no-store'
}

/** 32 random bytes, base64url (43 characters). */
export function newToken (): string {
  return randomBytes(32).toString('base64url')
}

/** Loopback addresses the studio binds to without --allow-remote. */
export function isLoopbackHost (host: string): boolean {
  if (host === 'localhost') return true
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1'
  return false
}

export interface Guard {
  /** The path after `/TOKEN`, or null when the path does not start with `/TOKEN/` (→ 404). */
  strip (path: string): string | null
  /** Whether the Host header names this server by a loopback name and our port. */
  hostAllowed (host: string | undefined): boolean
  /** Whether a write's Origin is the page's own origin. */
  originAllowed (origin: string | undefined, host: string | undefined): boolean
}

export function createGuard (token: string, port: () => number, extraHosts: string[] = []): Guard {
  const expected = Buffer.from(`/${token}/`)
  return {
    strip (path: string): string | null {
      const head = Buffer.from(path.slice(0, expected.length))
      // timingSafeEqual needs equal lengths; the length of a prefix says nothing about the token.
      if (head.length !== expected.length || !timingSafeEqual(head, expected)) return null
      return path.slice(expected.length - 1)
    },
    hostAllowed (host: string | undefined): boolean {
      if (host === undefined) return false
      const p = port()
      return ['127.0.0.1', 'localhost', '[::1]', ...extraHosts].some((h) => host.toLowerCase() === `${h}:${p}`)
    },
    originAllowed (origin: string | undefined, host: string | undefined): boolean {
      // The Host was checked first; the page's origin is http:// and that same host.
      return origin !== undefined && host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`
    }
  }
}
