// The storage quota at submission (tenant isolation, docs/security.md): a workspace whose stored
// documents reach SVC_DOCUMENT_WORKSPACE_QUOTA, or a service whose documents reach
// SVC_DOCUMENT_TOTAL_QUOTA, gets 429 RATE_LIMITED for new async renders, with Retry-After: when
// its (or anyone's) oldest document expires and the next sweep can delete it. The usage is one
// read of the counter rows (store/repos/document-usage.ts), at most once a second per workspace
// and process, like the queued-jobs cap (queue-cap.ts). A job admitted just under the quota may
// still go past it while it writes: the document writer then fails it with RENDER_LIMIT_EXCEEDED.
import { LRUCache } from 'lru-cache'
import { problem } from '../errors.js'
import type { DocumentUsageRepo } from '../store/repos/document-usage.js'

export interface StorageCapOptions { workspaceBytes: number, totalBytes: number, sweepMs: number }
export interface StorageCap { admit (workspaceId: string): Promise<void> }

interface Entry { at: number, refusal?: { message: string, retryAfter: number } }

export function createStorageCap (usage: DocumentUsageRepo, o: StorageCapOptions, freshMs = 1000): StorageCap {
  const entries = new LRUCache<string, Entry>({ max: 10_000 })

  async function check (workspaceId: string): Promise<Entry> {
    const u = await usage.usage(workspaceId)
    const mine = u.workspace >= o.workspaceBytes
    if (!mine && u.total < o.totalBytes) return { at: Date.now() }
    const oldest = await usage.oldestExpiry(mine ? workspaceId : undefined)
    const untilExpiry = oldest === undefined ? 0 : Math.max(0, oldest.getTime() - Date.now())
    const retryAfter = Math.max(1, Math.ceil((untilExpiry + o.sweepMs) / 1000))
    const message = mine
      ? `This workspace's stored documents take ${u.workspace} bytes, its storage quota is ${o.workspaceBytes}; retry when older documents have expired`
      : `Stored documents take ${u.total} bytes, the service's storage quota is ${o.totalBytes}; retry when older documents have expired`
    return { at: Date.now(), refusal: { message, retryAfter } }
  }

  return {
    async admit (workspaceId) {
      let entry = entries.get(workspaceId)
      if (entry === undefined || Date.now() - entry.at > freshMs) {
        entry = await check(workspaceId)
        entries.set(workspaceId, entry)
      }
      if (entry.refusal !== undefined) {
        throw problem('RATE_LIMITED', entry.refusal.message, { headers: { 'Retry-After': String(entry.refusal.retryAfter) } })
      }
    }
  }
}
