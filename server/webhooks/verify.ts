// Receiver side of Part 6, exported to clients as `svc/webhooks`. Depends on node:crypto only.
//
//   import { verifyWebhook } from 'svc/webhooks'
//   const result = verifyWebhook({
//     rawBody, signatureHeader: req.headers['svc-signature'], secrets: [current, previous]
//   })
//   if (!result.ok) return reply(400, result.reason)
import { createHmac, timingSafeEqual } from 'node:crypto'

export interface VerifyOptions {
  /** The body bytes exactly as received, before any JSON parsing. */
  rawBody: Buffer | string
  /** The `Svc-Signature` header value. */
  signatureHeader: string | undefined
  /** Every secret currently accepted (two during a rotation). */
  secrets: string[]
  /** Maximum distance between `t` and the receiver's clock; Part 6 says 5 minutes. */
  toleranceSeconds?: number
  /** The receiver's clock in milliseconds (tests). */
  now?: number
}

export type VerifyResult =
  | { ok: true, timestamp: number }
  | { ok: false, reason: 'missing-header' | 'malformed-header' | 'timestamp-out-of-tolerance' | 'no-matching-signature' | 'no-secrets' }

/** Parses `t=…, v1=…[, v1=…]`; unknown schemes are ignored so new ones can be added later. */
function parseHeader (header: string): { timestamp: number, signatures: Buffer[] } | undefined {
  let timestamp: number | undefined
  const signatures: Buffer[] = []
  for (const part of header.split(',')) {
    const eq = part.indexOf('=')
    if (eq < 0) return undefined
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return undefined
      timestamp = Number(value)
    } else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) {
      signatures.push(Buffer.from(value, 'hex'))
    }
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures }
}

export function verifyWebhook (options: VerifyOptions): VerifyResult {
  const { rawBody, signatureHeader, secrets } = options
  if (secrets.length === 0) return { ok: false, reason: 'no-secrets' }
  if (signatureHeader === undefined || signatureHeader === '') return { ok: false, reason: 'missing-header' }
  const parsed = parseHeader(signatureHeader)
  if (parsed === undefined) return { ok: false, reason: 'malformed-header' }
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  if (Math.abs(now - parsed.timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'timestamp-out-of-tolerance' }
  let match = false
  // Every secret against every signature, without an early exit: the time taken does not tell
  // which one matched.
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${parsed.timestamp}.`).update(rawBody).digest()
    for (const given of parsed.signatures) match = timingSafeEqual(expected, given) || match
  }
  return match ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'no-matching-signature' }
}
