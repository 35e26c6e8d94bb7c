// Failed authentications per client address: each failure takes a token from the address's
// bucket (auth/token-buckets.ts); an address whose bucket is empty
// is refused with 429 before its key is looked at or its body read, until a token is back.
// In this process's memory, like the per-key limit.
//
// Many clients can share one address (a NAT, or a balancer in TCP mode: every node sees the
// balancer's). So that one of them sending bad keys does not lock the others out, a key that
// authenticated on this process within VOUCH_MS is let through a blocked address: the request
// then goes through the whole check as any other (a key revoked since is still refused). Only
// the holder of a working secret gets this pass, so it gives a guesser nothing.
import { safeEqual } from '../util/crypto.js'
import { tokenBuckets } from './token-buckets.js'

/** How long a key that authenticated keeps its pass through a blocked address. */
export const VOUCH_MS = 60 * 60_000

/** The key a request presents: its id and its secret's digest. */
export interface PresentedSecret { keyId: string, secretHash: Buffer }

export interface FailureThrottle {
  /** Seconds the address must wait, or 0 when it may try (always 0 for a vouched key). */
  retryAfter: (address: string, key?: PresentedSecret) => number
  /** Records one failed authentication from the address. */
  fail: (address: string) => void
  /** Records that the key authenticated (its secret matched a usable key). */
  vouch: (key: PresentedSecret) => void
}

export function failureThrottle (
  perMinute: number,
  now: () => number = Date.now,
  maxBlocked = 100_000,
  maxVouched = 10_000
): FailureThrottle {
  const buckets = tokenBuckets(perMinute, now)
  const blockedUntil = new Map<string, number>()
  // keyId → the digest that authenticated and when; oldest first (bounded like blockedUntil).
  const vouched = new Map<string, { secretHash: Buffer, at: number }>()

  function isVouched (key: PresentedSecret, t: number): boolean {
    const v = vouched.get(key.keyId)
    return v !== undefined && t - v.at < VOUCH_MS && safeEqual(v.secretHash, key.secretHash)
  }

  function forgetExpired (t: number): void {
    for (const [address, until] of blockedUntil) if (until <= t) blockedUntil.delete(address)
  }

  return {
    retryAfter (address, key) {
      const until = blockedUntil.get(address)
      if (until === undefined) return 0
      const t = now()
      if (until <= t) {
        blockedUntil.delete(address)
        return 0
      }
      if (key !== undefined && isVouched(key, t)) return 0
      return Math.max(1, Math.ceil((until - t) / 1000))
    },
    vouch (key) {
      const t = now()
      const v = vouched.get(key.keyId)
      // Every request of a working key passes here: refresh at most once a minute. (A key id
      // has one secret: a vouched key's digest is the one its row holds.)
      if (v !== undefined && t - v.at < 60_000) return
      vouched.delete(key.keyId)
      if (vouched.size >= maxVouched) vouched.delete(vouched.keys().next().value as string)
      vouched.set(key.keyId, { secretHash: key.secretHash, at: t })
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
