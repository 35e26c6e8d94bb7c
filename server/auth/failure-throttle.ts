// Failed authentications per client address: each failure takes a token from the address's
// bucket (auth/token-buckets.ts); an address whose bucket is empty
// is refused with 429 before its key is looked at or its body read, until a token is back.
// In this process's memory, like the per-key limit.
import { tokenBuckets } from './token-buckets.js'

export interface FailureThrottle {
  /** Seconds the address must wait, or 0 when it may try. */
  retryAfter: (address: string) => number
  /** Records one failed authentication from the address. */
  fail: (address: string) => void
}

export function failureThrottle (
  perMinute: number,
  now: () => number = Date.now,
  maxBlocked = 100_000
): FailureThrottle {
  const buckets = tokenBuckets(perMinute, now)
  const blockedUntil = new Map<string, number>()

  function forgetExpired (t: number): void {
    for (const [address, until] of blockedUntil) if (until <= t) blockedUntil.delete(address)
  }

  return {
    retryAfter (address) {
      const until = blockedUntil.get(address)
      if (until === undefined) return 0
      const t = now()
      if (until <= t) {
        blockedUntil.delete(address)
        return 0
      }
      return Math.max(1, Math.ceil((until - t) / 1000))
    },
    fail (address) {
      const decision = buckets.take(address)
      if (decision.allowed && decision.remaining > 0) return
      // The last token is gone: blocked until the next one is back.
      const seconds = decision.allowed ? Math.max(1, Math.ceil(60 / perMinute)) : decision.retryAfterSeconds
      const t = now()
      // Bounded memory: expired blocks go first; past the cap the oldest block is dropped.
      if (blockedUntil.size >= maxBlocked) forgetExpired(t)
      if (blockedUntil.size >= maxBlocked) blockedUntil.delete(blockedUntil.keys().next().value as string)
      blockedUntil.delete(address)
      blockedUntil.set(address, t + seconds * 1000)
    }
  }
}
