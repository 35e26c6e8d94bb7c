// Per-workspace cap on queued jobs (tenant isolation): a workspace holding `max` queued jobs
// gets 429 RATE_LIMITED with Retry-After until some have run, so one tenant cannot grow the
// durable queue without bound. The count is read (bounded by `max`, through ix_jobs_fair) at
// most once a second per workspace and counted up locally in between: a burst is held to about
// the cap, and the hot path costs no query per request.
import { LRUCache } from 'lru-cache'
import { problem } from '../errors.js'
import type { JobsRepo } from '../store/repos/jobs.js'

/** Seconds a workspace over its queue cap is told to wait. */
export const QUEUE_CAP_RETRY_SECONDS = 5

export interface QueueCap { admit (workspaceId: string): Promise<void> }

export function createQueueCap (jobs: Pick<JobsRepo, 'countQueued'>, max: number, freshMs = 1000): QueueCap {
  const counts = new LRUCache<string, { count: number, at: number }>({ max: 10_000 })
  return {
    async admit (workspaceId) {
      let entry = counts.get(workspaceId)
      if (entry === undefined || Date.now() - entry.at > freshMs) {
        entry = { count: await jobs.countQueued(workspaceId, max), at: Date.now() }
        counts.set(workspaceId, entry)
      }
      if (entry.count >= max) {
        throw problem('RATE_LIMITED', `This workspace has ${max} queued jobs (the per-workspace queue cap); retry when some have run`,
          { headers: { 'Retry-After': String(QUEUE_CAP_RETRY_SECONDS) } })
      }
      entry.count++
    }
  }
}
