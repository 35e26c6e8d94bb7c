// Records a key's last use without a write per request: uses are collected through the one
// batcher (util/batcher.ts) and written in one UPDATE every few seconds (and on close). A crash
// loses at most that window of "last used" precision, never a request. Only requests the key
// was allowed to make are recorded (auth/authenticate.ts).
import { isRowFault } from '../store/db.js'
import { background, createBatcher, isolating } from '../util/batcher.js'
import type { ApiKeysRepo } from '../store/repos/api-keys.js'

export interface LastUsedRecorder {
  record(keyId: string): void
  flush: () => Promise<void>
  close: () => Promise<void>
}

export function createLastUsedRecorder (keys: Pick<ApiKeysRepo, 'touch'>, intervalMs = 5000,
  onError: (err: unknown) => void = () => {}): LastUsedRecorder {
  // A key used many times in one interval is written once.
  const waiting = new Set<string>()
  const writer = createBatcher<string, undefined>(isolating(async (ids) => {
    for (const id of ids) waiting.delete(id)
    try {
      await keys.touch(ids, new Date())
    } catch (err) {
      onError(err)
      throw err
    }
    return ids.map(() => undefined)
  }, { isItemFault: isRowFault }), { lingerMs: intervalMs, maxItems: 1000 })
  const uses = background(writer, { isItemFault: isRowFault, maxKept: 100_000 })
  return {
    record (keyId: string): void {
      if (waiting.has(keyId)) return
      waiting.add(keyId)
      uses.record(keyId)
    },
    flush: uses.flush.bind(uses),
    close: uses.close.bind(uses)
  }
}
