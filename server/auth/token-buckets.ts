// Token bucket per string key (here: a client address or a key id), in this process's memory:
// capacity = the per-minute allowance, refilled continuously, so a burst of the full minute is
// possible once and then events are spaced evenly. At most `maxKeys` buckets: past it, the oldest
// is forgotten (it starts full again). Used by the failed-authentication throttle; API keys
// have their own cluster-wide window (auth/rate-limiter.ts).
export interface RateDecision { allowed: boolean, remaining: number, retryAfterSeconds: number }

export interface TokenBuckets {
  take(key: string): RateDecision
}

export function createTokenBuckets (perMinute: number, now: () => number = Date.now, maxKeys = 100_000): TokenBuckets {
  const ratePerMs = perMinute / 60_000
  const buckets = new Map<string, { tokens: number, at: number }>()
  let lastSweep = now()

  function sweep (t: number): void {
    // A bucket untouched for a minute is full again: forget it, keeping memory bounded.
    if (t - lastSweep < 60_000) return
    lastSweep = t
    for (const [key, b] of buckets) if (t - b.at >= 60_000) buckets.delete(key)
  }

  return {
    take (key: string): RateDecision {
      const t = now()
      sweep(t)
      let b = buckets.get(key)
      if (b === undefined) {
        // Full (more keys in a minute than maxKeys): the oldest bucket goes, O(1).
        if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value as string)
        b = { tokens: perMinute, at: t }
        buckets.set(key, b)
      } else {
        b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * ratePerMs)
        b.at = t
      }
      if (b.tokens >= 1) {
        b.tokens -= 1
        return { allowed: true, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 }
      }
      return {
        allowed: false,
        remaining: 0,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerMs / 1000))
      }
    }
  }
}
