// Key form (spec Part 5): svc_<mode>_<keyId>_<secret>. The key id is looked up by primary key;
// the secret is compared as a SHA-256 digest in constant time. Secrets carry ~238 bits of
// entropy, so a fast hash is right (as for GitHub or Stripe tokens); a slow KDF would only
// slow every request.
import { randomId, randomText, sha256 } from './crypto.js'

export type KeyMode = 'live' | 'test'
export const SCOPES = ['render', 'templates.read', 'templates.write', 'datasets.execute'] as const
export type Scope = typeof SCOPES[number]

const KEY_PATTERN = /^svc_(live|test)_([a-z0-9]{12})_([A-Za-z0-9]{40})$/

export interface ParsedKey { mode: KeyMode, keyId: string, secret: string }

export function parseApiKey (token: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(token)
  const [, mode, keyId, secret] = match ?? []
  if (mode === undefined || keyId === undefined || secret === undefined) return undefined
  return { mode: mode as KeyMode, keyId, secret }
}

export function keyPrefix (mode: KeyMode, keyId: string): string {
  return `svc_${mode}_${keyId}`
}

export function generateApiKey (mode: KeyMode): {
  keyId: string
  secret: string
  key: string
  prefix: string
  secretHash: Buffer
} {
  const keyId = randomId(12)
  const secret = randomText(40)
  const prefix = keyPrefix(mode, keyId)
  return { keyId, secret, prefix, key: `${prefix}_${secret}`, secretHash: sha256(secret) }
}

export function defaultEnvironment (mode: KeyMode): string {
  return mode === 'live' ? 'production' : 'development'
}
