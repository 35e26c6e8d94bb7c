// The master keys of a running process follow the keyring file (SVC_HOME/master-keys), so a key
// added with `svc secrets add-key` opens values in servers that are already running, without a
// restart (issue 30). The file is read again:
//   - when a value names a key id no configured key has, or a document link no key signed
//     (Keyring.refresh: at most once every REFRESH_INTERVAL_MS; reading is synchronous, a stat and
//     a small file, so callers at the same moment share the one reading);
//   - on SIGHUP (bin/serve.ts) and every WATCH_INTERVAL_MS (main.ts), which also drops a key
//     removed with `svc secrets remove-key`.
// Only a changed file is read (inode, size, mtime). A file that cannot be used (readable by
// others, no key) is reported and the keys in use stay. Keys from SVC_MASTER_KEYS/SVC_MASTER_KEY
// cannot change while the process runs: with them this keyring never reloads.
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config.js'
import { createKeyring, SealedValueError } from './keyring.js'
import type { Keyring } from './keyring.js'
import { KEYRING_FILE, loadKeys, readKeyringFileSync } from './load.js'

export const REFRESH_INTERVAL_MS = 2000
export const WATCH_INTERVAL_MS = 30_000

export interface ReloadingKeyring extends Keyring {
  /** Reads the keyring file now if it changed (SIGHUP, the periodic check): true when the keys changed. */
  reload (): boolean
  /** Reloads every `intervalMs` until the returned function is called. */
  watch (intervalMs: number): () => void
}

export interface ReloadOptions {
  /** Least time between two readings asked for by refresh(). */
  minIntervalMs?: number
  onReload?: (keyIds: string[]) => void
  onError?: (err: unknown) => void
}

/** The configured keys (load.ts), following the keyring file when they come from it. */
export async function createReloadingKeyring (config: Pick<Config, 'home' | 'masterKey' | 'masterKeys'>,
  options: ReloadOptions = {}): Promise<ReloadingKeyring> {
  const fromEnvironment = config.masterKeys !== undefined || config.masterKey !== undefined
  return followFile(await loadKeys(config), fromEnvironment ? undefined : join(config.home, KEYRING_FILE), options)
}

/** What tells a changed file: undefined when there is none. */
function stamp (file: string): string | undefined {
  try {
    const s = statSync(file)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return undefined
  }
}

/** `initial`, then the keys of `file` each time it changed (undefined: keys that never change). */
export function followFile (initial: Buffer[], file: string | undefined,
  options: ReloadOptions = {}): ReloadingKeyring {
  let current = createKeyring(initial)
  let seen = file === undefined ? undefined : stamp(file)
  let lastRefresh = -Infinity
  const minIntervalMs = options.minIntervalMs ?? REFRESH_INTERVAL_MS

  function reload (): boolean {
    if (file === undefined) return false
    const now = stamp(file)
    // No file (yet, or any more): the keys in use stay.
    if (now === undefined || now === seen) return false
    try {
      const next = createKeyring(readKeyringFileSync(file))
      seen = now
      if (next.ids.join() === current.ids.join()) return false
      current = next
      options.onReload?.(next.ids)
      return true
    } catch (err) {
      options.onError?.(err)
      return false
    }
  }

  function refresh (): boolean {
    const now = Date.now()
    if (now - lastRefresh < minIntervalMs) return false
    lastRefresh = now
    return reload()
  }

  return {
    get activeId () { return current.activeId },
    get ids () { return current.ids },
    get activeHeader () { return current.activeHeader },
    seal: (plain, ref) => current.seal(plain, ref),
    open (sealed, ref) {
      try {
        return current.open(sealed, ref)
      } catch (err) {
        // Sealed under a key this process does not have (yet): added since it started?
        const unknownKey = err instanceof SealedValueError && err.keyId !== null && !current.ids.includes(err.keyId)
        if (!unknownKey || !refresh()) throw err
        return current.open(sealed, ref)
      }
    },
    keyIdOf: (sealed) => current.keyIdOf(sealed),
    derive: (purpose) => current.derive(purpose),
    refresh,
    reload,
    watch (intervalMs) {
      const timer = setInterval(reload, intervalMs)
      timer.unref()
      return () => { clearInterval(timer) }
    }
  }
}
