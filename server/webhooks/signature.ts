// Part 6 signatures: `Svc-Signature: t=<unix_seconds>, v1=<hex>` where v1 is the lowercase hex
// HMAC-SHA256 of `<t>.<raw body>`, keyed with the UTF-8 bytes of the whole `whsec_…` secret.
import { createHmac } from 'node:crypto'
import { randomText } from '../util/crypto.js'

export const SECRET_PREFIX = 'whsec_'

/** 32 base62 characters ≈ 190 bits after the prefix. */
export function generateSecret (): string {
  return SECRET_PREFIX + randomText(32)
}

export function signatureHex (secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')
}

export function signatureHeader (secret: string, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp}, v1=${signatureHex(secret, timestamp, body)}`
}
