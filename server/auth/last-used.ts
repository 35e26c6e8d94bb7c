// Records a key's last use without a write per request: uses are collected in memory and
// written in one UPDATE every few seconds (and on close). A crash loses at most that window
// of "last used" precision, never a request.
import type { ApiKeysRepo } from '../store/repos/api-keys.js'

export function lastUsedRecorder (keys: ApiKeysRepo, intervalMs = 5000, onError: (err: unknown) => void = () => {}) {
  let pending = new Set<string>()
  const flush = async (): Promise<void> => {
    if (pending.size === 0) return
    const ids = [...pending]
    pending = new Set()
    try { await keys.touch(ids, new Date()) } catch (err) { onError(err) }
  }
  const timer = setInterval(() => { void flush() }, intervalMs)
  timer.unref()
  return {
    record (keyId: string): void { pending.add(keyId) },
    flush,
    async close (): Promise<void> { clearInterval(timer); await flush() }
  }
}
export type LastUsedRecorder = ReturnType<typeof lastUsedRecorder>
