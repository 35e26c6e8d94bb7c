// Small, audited building blocks: random tokens, hashing, constant-time comparison and the
// single master-key file (sealing itself is server/secrets/keyring.ts).
import { createHash, randomBytes, randomInt, timingSafeEqual, createHmac } from 'node:crypto'
import { existsSync } from 'node:fs'
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** Uniform random text from an alphabet (randomInt rejects bias). No `_`, so keys split cleanly. */
export function randomText (length: number, alphabet = ALPHABET): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)]
  return out
}
export const randomId = (length: number): string => randomText(length, LOWER)

export function sha256 (text: string | Buffer): Buffer {
  return createHash('sha256').update(text).digest()
}

export function hmacSha256 (key: string | Buffer, text: string | Buffer): Buffer {
  return createHmac('sha256', key).update(text).digest()
}

/** Constant-time equality for equal-length digests; different lengths are simply unequal. */
export function safeEqual (a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The master key: SVC_MASTER_KEY, else SVC_HOME/master.key, created with 0600 on first use. */
export async function loadMasterKey (home: string, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'hex')
  const file = join(home, 'master.key')
  if (!existsSync(file)) {
    await mkdir(home, { recursive: true, mode: 0o700 })
    // Written whole under a private name, then linked into place: link fails with EEXIST when
    // another process won the race, and no reader ever sees a half-written key file.
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`
    await writeFile(tmp, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
    try {
      await link(tmp, file).catch((err: NodeJS.ErrnoException) => { if (err.code !== 'EEXIST') throw err })
    } finally {
      await unlink(tmp).catch(() => {})
    }
  }
  const text = (await readFile(file, 'utf8')).trim()
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new Error(`${file} does not hold a 64-hex-character key`)
  return Buffer.from(text, 'hex')
}
