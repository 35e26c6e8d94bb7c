// The master keys and the envelope of every sealed value (data-source passwords, webhook signing
// secrets). Several keys can be configured at once: the first seals, all of them open, so a key
// can be rotated while servers run (docs/security.md). An envelope names the key that sealed it
// and is bound to its row and column by AES-GCM associated data: a value copied to another row,
// or another column, does not open.
//
//   envelope = ff 53 02 | key id (4) | iv (12) | tag (16) | ciphertext
//   AAD      = the 7 header bytes | "<table>\0<column>\0<row id>"
//
// Values sealed before envelopes existed (iv | tag | ciphertext under one key, no AAD) still open
// with any configured key; `svc secrets rotate` re-seals them.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto'

/** Where a sealed value lives: part of its associated data. */
export interface SealedRef { table: string, column: string, id: string }

export class SealedValueError extends Error {
  readonly code = 'SECRET_UNREADABLE'
  constructor (readonly ref: SealedRef, readonly keyId: string | null, reason: string) {
    super(`sealed ${ref.table}.${ref.column} of row ${ref.id} cannot be opened: ${reason}`)
  }
}

export interface Keyring {
  /** Hex id of the key that seals (the first configured). */
  readonly activeId: string
  /** Hex ids of all configured keys, the active one first. */
  readonly ids: string[]
  seal (plain: string, ref: SealedRef): Buffer
  /** The plain text; throws SealedValueError (never the key or the text) when it cannot be opened. */
  open (sealed: Buffer, ref: SealedRef): string
  /** The key id in an envelope, or 'legacy' for a value sealed before envelopes. */
  keyIdOf (sealed: Buffer): string
  /** The 7 bytes every value sealed by the active key starts with (rotation selects on them). */
  readonly activeHeader: Buffer
  /** Per-key secrets for other purposes (document links), derived so no two uses share a key. */
  derive (purpose: string): Buffer[]
  /**
   * Reads the keys again where they came from, when they may have changed (a keyring file; at
   * most once every few seconds): true when they changed. Callers that meet a value or a
   * signature no configured key opens call it once and try again (secrets/reload.ts).
   */
  refresh (): boolean
}

const MAGIC = Buffer.from([0xff, 0x53, 0x02])
const HEADER_LENGTH = MAGIC.length + 4
const OVERHEAD = 12 + 16

/** A key's public id: 4 bytes of a hash of the key, shown as 8 hex characters. */
export function keyIdOf (key: Buffer): Buffer {
  return createHash('sha256').update('svc master key id\0').update(key).digest().subarray(0, 4)
}

const aad = (header: Buffer, ref: SealedRef): Buffer =>
  Buffer.concat([header, Buffer.from(`${ref.table}\0${ref.column}\0${ref.id}`)])

function decrypt (key: Buffer, body: Buffer, additional: Buffer | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 12))
  if (additional !== null) decipher.setAAD(additional)
  decipher.setAuthTag(body.subarray(12, 28))
  return Buffer.concat([decipher.update(body.subarray(28)), decipher.final()]).toString('utf8')
}

function tryDecrypt (key: Buffer, body: Buffer, additional: Buffer | null): string | undefined {
  try { return decrypt(key, body, additional) } catch { return undefined }
}

/** `keys`: 32-byte keys, the active (sealing) key first, no duplicates. */
export function createKeyring (keys: Buffer[]): Keyring {
  const entries = keys.map((key) => ({ key, id: keyIdOf(key) }))
  const active = entries[0]
  if (active === undefined) throw new Error('at least one master key is needed')
  for (const k of keys) if (k.length !== 32) throw new Error('a master key must be 32 bytes')
  const byId = new Map(entries.map((e) => [e.id.toString('hex'), e.key]))
  if (byId.size !== keys.length) throw new Error('the same master key is configured twice')
  const activeHeader = Buffer.concat([MAGIC, active.id])
  const derived = new Map<string, Buffer[]>()
  const isEnvelope = (sealed: Buffer): boolean =>
    sealed.length >= HEADER_LENGTH + OVERHEAD && sealed.subarray(0, 3).equals(MAGIC)

  return {
    activeId: active.id.toString('hex'),
    ids: entries.map((e) => e.id.toString('hex')),
    activeHeader,
    seal (plain, ref) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', active.key, iv)
      cipher.setAAD(aad(activeHeader, ref))
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return Buffer.concat([activeHeader, iv, cipher.getAuthTag(), body])
    },
    open (sealed, ref) {
      let keyId: string | null = null
      if (isEnvelope(sealed)) {
        keyId = sealed.subarray(3, HEADER_LENGTH).toString('hex')
        const key = byId.get(keyId)
        const header = sealed.subarray(0, HEADER_LENGTH)
        const plain = key === undefined ? undefined : tryDecrypt(key, sealed.subarray(HEADER_LENGTH), aad(header, ref))
        if (plain !== undefined) return plain
      }
      // A value from before envelopes (its first bytes are a random IV, so it may look like one).
      if (sealed.length >= OVERHEAD) {
        for (const { key } of entries) {
          const plain = tryDecrypt(key, sealed, null)
          if (plain !== undefined) return plain
        }
      }
      if (keyId !== null && !byId.has(keyId)) {
        throw new SealedValueError(ref, keyId, `it was sealed with master key ${keyId}, which is not configured`)
      }
      throw new SealedValueError(ref, keyId, 'it does not belong to this row and column, or it was altered')
    },
    keyIdOf: (sealed) => isEnvelope(sealed) ? sealed.subarray(3, HEADER_LENGTH).toString('hex') : 'legacy',
    derive (purpose) {
      // Cached: callers derive on every use, so a reloaded keyring is followed at once.
      let keys = derived.get(purpose)
      if (keys === undefined) {
        keys = entries.map((e) => createHmac('sha256', e.key).update(purpose).digest())
        derived.set(purpose, keys)
      }
      return keys
    },
    // These keys never change; a reloading keyring (secrets/reload.ts) wraps one per reading.
    refresh: () => false
  }
}
