// Signed, short-lived document links (GET /v1/documents/{token}, no API key). The token carries
// the document id and the link's expiry, signed with HMAC-SHA256 under a key derived from the
// master key, so every server process sharing that key can check any link. With several master
// keys (rotation) links are signed under the sealing key and accepted under every configured
// key: a link minted before a rotation works until it expires, or until its key is removed. A
// link no key signed makes the keyring look for keys added since (another process, which read
// the keyring file first, may have signed it under a new key).
import { hmacSha256, safeEqual } from '../util/crypto.js'
import type { Keyring } from '../secrets/keyring.js'

export interface DocumentLinks {
  /** A fresh token for `documentId`, valid for the configured link lifetime (never past `documentExpiresAt`). */
  mint (documentId: string, documentExpiresAt: Date, now?: number): { token: string, expiresAt: Date }
  /** The document id when the token is authentic and unexpired, else undefined. */
  verify (token: string, now?: number): string | undefined
}

const TOKEN = /^([0-9a-f]{32})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/

const PURPOSE = 'svc document links v1'

export function createDocumentLinks (keys: Pick<Keyring, 'derive' | 'refresh'>, linkTtlMs: number): DocumentLinks {
  // Derived on each use (the keyring caches it): the keys may change while the process runs.
  const signingKey = (): Buffer => {
    const [k] = keys.derive(PURPOSE)
    if (k === undefined) throw new Error('document links: the keyring has no key')
    return k
  }
  const sign = (payload: string, k = signingKey()): Buffer => hmacSha256(k, payload)
  const signedByAny = (payload: string, mac: Buffer): boolean =>
    keys.derive(PURPOSE).some((k) => safeEqual(mac, sign(payload, k)))
  return {
    mint (documentId, documentExpiresAt, now = Date.now()) {
      // Whole seconds in the token: round the link's own lifetime up (a link never lives shorter
      // than its TTL) but never past the document's expiry.
      const seconds = Math.min(Math.ceil((now + linkTtlMs) / 1000), Math.floor(documentExpiresAt.getTime() / 1000))
      const payload = `${documentId.replace(/-/g, '')}.${seconds.toString(36)}`
      return { token: `${payload}.${sign(payload).toString('base64url')}`, expiresAt: new Date(seconds * 1000) }
    },
    verify (token, now = Date.now()) {
      const [, h, expires, macText] = TOKEN.exec(token) ?? []
      if (h === undefined || expires === undefined || macText === undefined) return undefined
      const payload = `${h}.${expires}`
      const mac = Buffer.from(macText, 'base64url')
      if (!signedByAny(payload, mac) && !(keys.refresh() && signedByAny(payload, mac))) return undefined
      if (parseInt(expires, 36) * 1000 <= now) return undefined
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
    }
  }
}
