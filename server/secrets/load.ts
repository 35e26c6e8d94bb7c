// Where the master keys come from, in this order (docs/security.md):
//   1. SVC_MASTER_KEYS: comma-separated 64-hex keys, the first seals; SVC_MASTER_KEY, when also
//      set and not listed, is added last (it still opens, so rotating away from it is one step).
//   2. SVC_MASTER_KEY alone.
//   3. SVC_HOME/master-keys: one 64-hex key a line (# comments), the first seals; mode 0600.
//   4. SVC_HOME/master.key, created with 0600 on first use (a single key).
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../config.js'
import { loadMasterKey } from '../util/crypto.js'
import { keyIdOf } from './keyring.js'

export const KEYRING_FILE = 'master-keys'

export function parseKeyList (text: string, separator: RegExp): Buffer[] {
  return text.split(separator).map((l) => l.replace(/#.*/, '').trim()).filter(Boolean).map((hex) => {
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error('a master key must be 64 hex characters (32 bytes)')
    return Buffer.from(hex, 'hex')
  })
}

function addUnlisted (keys: Buffer[], extra: Buffer): Buffer[] {
  return keys.some((k) => k.equals(extra)) ? keys : [...keys, extra]
}

function keyringFileKeys (file: string, mode: number, text: string): Buffer[] {
  // Like ssh with a private key: a keyring others can read is refused, not silently used.
  if ((mode & 0o077) !== 0) throw new Error(`${file} is readable by others: chmod 600 it`)
  const keys = parseKeyList(text, /\r?\n/)
  if (keys.length === 0) throw new Error(`${file} holds no key`)
  return keys
}

export async function readKeyringFile (home: string): Promise<Buffer[] | undefined> {
  const file = join(home, KEYRING_FILE)
  if (!existsSync(file)) return undefined
  return keyringFileKeys(file, (await stat(file)).mode, await readFile(file, 'utf8'))
}

/** The same, synchronously: a running server reads it again where a sealed value is opened (reload.ts). */
export function readKeyringFileSync (file: string): Buffer[] {
  return keyringFileKeys(file, statSync(file).mode, readFileSync(file, 'utf8'))
}

/** The configured keys, the sealing key first. */
export async function loadKeys (config: Pick<Config, 'home' | 'masterKey' | 'masterKeys'>): Promise<Buffer[]> {
  const single = config.masterKey === undefined ? undefined : Buffer.from(config.masterKey, 'hex')
  if (config.masterKeys !== undefined) {
    const keys = config.masterKeys.map((hex) => Buffer.from(hex, 'hex'))
    return single === undefined ? keys : addUnlisted(keys, single)
  }
  if (single !== undefined) return [single]
  return (await readKeyringFile(config.home)) ?? [await loadMasterKey(config.home, undefined)]
}

/** Writes SVC_HOME/master-keys (0600) whole, then renames it into place. */
export async function writeKeyringFile (home: string, keys: Buffer[]): Promise<string> {
  const file = join(home, KEYRING_FILE)
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`
  const lines = keys.map((k, i) => `${k.toString('hex')}  # ${keyIdOf(k).toString('hex')}${i === 0 ? ' (seals)' : ''}`)
  const text = `# svc master keys: the first seals, all open (docs/security.md)\n${lines.join('\n')}\n`
  await writeFile(tmp, text, { mode: 0o600, flag: 'wx' })
  try { await rename(tmp, file) } catch (err) { await unlink(tmp).catch(() => {}); throw err }
  return file
}
