// One request limit per API key across every node, shared through the service database.
//
// Algorithm: a sliding window, not GCRA. The database keeps, per key, the tokens leased in each
// 3 s slot of the last 63 s (store/repos/rate-limits.ts); a node leases a block of tokens with
// one UPDATE and spends them locally until the block is empty or its slot ends, then gives back
// what is left. A lease only succeeds while the ring holds fewer than the limit, and a token is
// spent at most 3 s after its lease, inside its slot, so any 60 s of requests (which touch at
// most 21 slots) stays within the limit across all nodes. The price of exactness: a key kept at
// its limit for minutes gets `limit` per ~63 s, 5% less than per 60 s.
//
// Cost: one statement per lease and one per give-back, leases growing while a key is busy (up to
// limit/20 tokens); a refused key asks the database again only when its wait is over.
//
// Exact across nodes: a token leased by one node is refused to the others until it is spent or
// given back, so a lease never takes more than a tenth of the window's room (ROOM_SHARE, in the
// lease statement): blocks shrink as the window fills, and a key round-robined over nodes gets its
// whole limit before its first refusal. That refusal's Retry-After is the window's own wait
// (waitMs: until enough of the oldest slots leave the ring), read from the row once.
//
// Database unreachable: a key with a live lease keeps spending it (until it is empty or its
// slot ends); any other key is refused (fail closed) with `unavailable` set, answered 503.
//
// Off: a default of 0 (SVC_RATE_LIMIT=0) leaves keys without a limit of their own unlimited, with
// no state and no statement; a key's own limit still applies.
import type { RateLimitsRepo, Lease, WindowState } from '../store/repos/rate-limits.js'
import { SLOT_MS, SLOTS, MAX_BLOCK } from '../store/repos/rate-limits.js'
import type { AdmitKey, RateDecision } from './authenticate.js'

interface KeyState {
  tokens: number
  used: number
  slot: number
  expiresAt: number
  size: number
  /** The window's remaining tokens at the last lease, less this node's spending since. */
  remaining: number
  blockedUntil: number
  lastSeen: number
  pending: Promise<boolean> | undefined
}

export interface RateLimiterOptions {
  /** The limit of keys without one of their own; 0 = those keys are not limited. */
  defaultPerMinute: number
  onError?: (err: unknown) => void
  now?: () => number
}

/** The full slot index from its low 9 bits and this node's clock (nodes may differ by minutes). */
function slotOf (slotMod: number, localMs: number): number {
  const local = Math.floor(localMs / SLOT_MS)
  let slot = local - ((((local - slotMod) % 512) + 512) % 512)
  if (local - slot > 256) slot += 512
  return slot
}

/** Milliseconds until the window holds fewer than `limit` tokens (0: it does already). */
export function waitMs (w: WindowState, limit: number): number {
  const cur = Math.floor(w.nowMs / SLOT_MS)
  const held: Array<{ slot: number, tokens: number }> = []
  w.slots.forEach((tokens, k) => {
    const slot = w.epoch - ((((w.epoch - k) % SLOTS) + SLOTS) % SLOTS)
    if (slot > cur - SLOTS && tokens > 0) held.push({ slot, tokens })
  })
  let excess = held.reduce((sum, h) => sum + h.tokens, 0) - limit + 1
  if (excess <= 0) return 0
  held.sort((a, b) => a.slot - b.slot)
  for (const h of held) {
    excess -= h.tokens
    // Slot s leaves the ring when the current slot reaches s + SLOTS.
    if (excess <= 0) return Math.max(0, (h.slot + SLOTS) * SLOT_MS - w.nowMs)
  }
  return SLOTS * SLOT_MS
}

export interface RateLimiter {
  admit(key: AdmitKey): Promise<RateDecision>
  sweep: () => void
  /** Shutdown: every live lease is given back (this node spends none of it any more). */
  close(): Promise<void>
}

export function createRateLimiter (repo: RateLimitsRepo, options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now
  const states = new Map<string, KeyState>()
  const onError = options.onError ?? (() => {})
  const timer = setInterval(() => { sweep() }, SLOT_MS)
  timer.unref()

  const maxBlock = (limit: number): number => Math.min(MAX_BLOCK, Math.max(1, Math.ceil(limit / 20)))

  async function lease (id: string, s: KeyState, limit: number, t: number): Promise<boolean> {
    try {
      if (t >= s.expiresAt && s.tokens > 0) {
        // The lease's slot is over: what is left goes back (before the next lease, so this node
        // can take it again), and the next block is sized by what this one served.
        const left = s.tokens
        s.tokens = 0
        s.size = Math.max(1, Math.min(maxBlock(limit), Math.ceil(s.used * 1.5)))
        await repo.giveBack(id, s.slot, left)
      } else if (s.used > 0) {
        // A block spent before its slot ended: the key is busier than the block, double it.
        s.size = Math.min(maxBlock(limit), s.size * 2)
      }
      s.used = 0
      const sent = now()
      let l: Lease | undefined = await repo.lease(id, limit, s.size)
      if (l === undefined) {
        await repo.create(id)
        l = await repo.lease(id, limit, s.size)
        if (l === undefined) throw new Error('rate limit row missing after insert')
      }
      s.tokens = l.granted
      s.used = 0
      s.slot = slotOf(l.slotMod, sent)
      // The slot ends SLOT_MS - msIntoSlot after the database ran the UPDATE, which was after `sent`.
      s.expiresAt = sent + SLOT_MS - l.msIntoSlot
      s.remaining = l.remaining + l.granted
      if (l.granted === 0) {
        const w = await repo.window(id)
        // At least 100 ms: a window with room but no grant (a race) must not cost a statement per request.
        s.blockedUntil = now() + Math.max(100, w === undefined ? SLOT_MS : waitMs(w, limit))
      }
      return true
    } catch (err) {
      onError(err)
      return false
    }
  }

  /** Gives back the leftovers of expired leases and forgets keys idle for two minutes. */
  function sweep (): void {
    const t = now()
    for (const [id, s] of states) {
      if (s.pending !== undefined) continue
      if (t >= s.expiresAt && s.tokens > 0) {
        repo.giveBack(id, s.slot, s.tokens).catch(onError)
        s.tokens = 0
        s.size = Math.max(1, Math.ceil(s.used * 1.5))
        s.used = 0
      }
      if (t - s.lastSeen > 120_000 && t >= s.blockedUntil) states.delete(id)
    }
  }

  function take (s: KeyState, limit: number): RateDecision {
    s.tokens--
    s.used++
    s.remaining = Math.max(0, s.remaining - 1)
    return { allowed: true, retryAfterSeconds: 0, limit, remaining: s.remaining }
  }

  function refuse (s: KeyState, limit: number, t: number): RateDecision {
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((s.blockedUntil - t) / 1000)),
      limit,
      remaining: 0
    }
  }

  return {
    async admit (key: AdmitKey): Promise<RateDecision> {
      const limit = key.rateLimit ?? options.defaultPerMinute
      if (limit === 0) return { allowed: true, retryAfterSeconds: 0, limit: 0, remaining: 0, unlimited: true }
      let s = states.get(key.keyId)
      if (s === undefined) {
        s = {
          tokens: 0,
          used: 0,
          slot: 0,
          expiresAt: 0,
          size: maxBlock(limit),
          remaining: 0,
          blockedUntil: 0,
          lastSeen: 0,
          pending: undefined
        }
        states.set(key.keyId, s)
      }
      // Requests that find the block empty wait for one lease together. Every round either
      // grants a token (taken by one waiter, blocks doubling) or ends in a refusal: it ends.
      for (;;) {
        const t = now()
        s.lastSeen = t
        if (s.tokens > 0 && t < s.expiresAt) return take(s, limit)
        if (t < s.blockedUntil) return refuse(s, limit, t)
        if (s.pending === undefined) {
          const st = s
          st.pending = lease(key.keyId, st, limit, t).finally(() => { st.pending = undefined })
        }
        if (!await s.pending) {
          return { allowed: false, retryAfterSeconds: 1, limit, remaining: 0, unavailable: true }
        }
      }
    },

    sweep,

    async close (): Promise<void> {
      clearInterval(timer)
      const backs: Array<Promise<void>> = []
      for (const [id, s] of states) {
        if (s.tokens > 0) backs.push(repo.giveBack(id, s.slot, s.tokens).catch(onError))
        s.tokens = 0
      }
      states.clear()
      await Promise.all(backs)
    }
  }
}
