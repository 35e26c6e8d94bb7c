// Failed authentications: what a wrong or unknown key may cost, and what a working key never pays.
//
// A working key is never refused here. Nothing is decided about a request before its key was
// checked: the throttle only answers requests that fail, so a client behind the same NAT or
// balancer as a guesser, a key never seen by this process, and every key after a restart go
// through like any other (issue 30, finding 3).
//
// What a failing request costs is bounded by two parts, both in this process's memory:
// - Remembered refusals (a negative cache, at most MAX_REMEMBERED key ids, oldest dropped first):
//   a key id the database does not hold, and the row of a key whose check failed. The next
//   request with that id is answered from memory, with no database read: an unknown id, a wrong
//   secret (digests compared in constant time), a revoked or expired key (both final: a key is
//   never un-revoked and its expiry never changes). A matching secret of a usable row is always
//   read again (revocation is immediate). So a bad key costs at most one primary-key read per
//   process, the read every valid request makes; a guesser who changes the id with every request
//   costs that one read each time, never more than a valid request, and one map entry.
// - Failure budgets (token buckets of SVC_AUTH_FAILURE_LIMIT a minute): one per client address
//   and one per key id (existing or not). Every failure takes a token from both; once either is empty,
//   failures are answered 429 RATE_LIMITED with Retry-After instead of 401 (a client is told to
//   back off), until a token is back. Only failing requests are counted and only they are
//   answered 429, so a shared address (no PROXY header behind a balancer: every client has the
//   balancer's address) or a key id under attack never locks out a working key. Per key id,
//   because behind a balancer the address may say nothing.
//
// What a guesser learns: within the budget the 401s of Part 7 (unknown, revoked, expired); past
// it every failure is the same 429, whatever the reason, and a working key is 200 either way (as
// it would be from a 401), so 429 against 401 tells nothing about the key; unknown and existing
// ids have the same budget, so it does not tell whether an id exists either. Unknown ids are
// answered with a constant-time compare too, so memory answers take the same path for all.
//
// A restart empties both (nothing is refused because of them): remembered refusals cost one read
// per id again, and a guesser gets one more minute's budget per restart of a process.
import { safeEqual } from '../util/crypto.js'
import { verifyKey } from './keys.js'
import type { PresentedKey } from './keys.js'
import type { ApiKeyRow } from '../store/repos/api-keys.js'
import { createTokenBuckets } from './token-buckets.js'

/** Key ids whose refusal is remembered (an unknown id costs a map entry of ~100 bytes). */
export const MAX_REMEMBERED = 100_000
/** Addresses and key ids with a failure budget in use (an address or key id past it starts full again). */
export const MAX_BUDGETS = 100_000

export interface FailureThrottle {
  /**
   * Throws the 401 this key earned before (unknown id, wrong secret, revoked, expired) without a
   * database read; returns when the key must be read.
   */
  refuseKnown: (key: PresentedKey) => void
  /** Remembers what the read found for a key that failed its check (`row` undefined: no such id). */
  remember: (key: PresentedKey, row: ApiKeyRow | undefined) => void
  /**
   * Counts one failed authentication of the address and key id (each when known): seconds to
   * wait once a budget is spent (answer 429), else 0 (answer the 401).
   */
  fail: (address: string | undefined, keyId: string | undefined) => number
}

const NO_DIGEST = Buffer.alloc(32)

export function createFailureThrottle (
  perMinute: number,
  now: () => number = Date.now,
  maxRemembered = MAX_REMEMBERED,
  maxBudgets = MAX_BUDGETS
): FailureThrottle {
  // Two tables, not one: a guesser's fresh key ids fill the key-id table and push out its
  // oldest buckets, never the address buckets (its own address's spent budget included).
  const byAddress = createTokenBuckets(perMinute, now, maxBudgets)
  const byKeyId = createTokenBuckets(perMinute, now, maxBudgets)
  // keyId → the row whose check failed, or null: the database holds no such id. Oldest first.
  const refused = new Map<string, ApiKeyRow | null>()

  return {
    refuseKnown (key) {
      const row = refused.get(key.keyId)
      if (row === undefined) return
      // No such id: the same constant-time compare as a known id's, so both take one path.
      if (row === null) safeEqual(NO_DIGEST, key.secretHash)
      // Throws, unless the secret matches a usable row: then the database is asked again.
      verifyKey(key, row ?? undefined, now())
    },
    remember (key, row) {
      if (refused.has(key.keyId)) refused.delete(key.keyId)
      else if (refused.size >= maxRemembered) refused.delete(refused.keys().next().value as string)
      refused.set(key.keyId, row ?? null)
    },
    fail (address, keyId) {
      let wait = 0
      if (address !== undefined) wait = byAddress.take(address).retryAfterSeconds
      // Every well-formed id, existing or not: a 429 after the id's budget must not tell whether
      // it exists. Random ids each take one token of a bucket (the table is bounded).
      if (keyId !== undefined) wait = Math.max(wait, byKeyId.take(keyId).retryAfterSeconds)
      return wait
    }
  }
}
