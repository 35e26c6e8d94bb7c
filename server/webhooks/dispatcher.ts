// The dispatcher that runs in every server process: fan out new events, claim due deliveries
// (SKIP LOCKED, READ COMMITTED, with a lease), send them signed with bounded concurrency, and
// write outcomes in batches. A process that dies mid-send leaves its deliveries leased; they
// come due again when the lease expires and are sent again with the same event id (at least once).
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { transaction } from '../store/db.js'
import type { Db } from '../store/db.js'
import type { SecretBox } from '../util/crypto.js'
import { deliveriesRepo } from '../store/repos/webhooks-deliveries.js'
import type { ClaimedDelivery, Completion } from '../store/repos/webhooks-deliveries.js'
import type { Resolver } from '../net/address-guard.js'
import { fanOut } from './fanout.js'
import { outboxSignal } from './outbox.js'
import { createSender } from './sender.js'
import { signatureHeader } from './signature.js'
import { endpointSlots } from './endpoint-slots.js'

/** Sends cut short by a crash (no attempt recorded) before a delivery is abandoned. */
export const MAX_INTERRUPTED_SENDS = 3
export const USER_AGENT = 'Svc-Webhooks/1.0'
// One receiver never gets more sockets than this from one process; further sends queue in the Agent.
const MAX_SOCKETS_PER_ORIGIN = 64

export interface DispatcherDeps {
  db: Db
  box: SecretBox
  logger: Logger
  /** Injected in tests to swap DNS answers. */
  resolver?: Resolver
  /** Default: longer than any attempt can last (3 × timeout + 1 s). */
  leaseMs?: number
}

export function leaseFor (timeoutMs: number): number { return 3 * timeoutMs + 1000 }

export function webhookDispatcher (config: Config, deps: DispatcherDeps) {
  const { db, box, logger } = deps
  const wh = config.webhooks
  const maxAttempts = wh.retrySchedule.length + 1
  const leaseMs = deps.leaseMs ?? leaseFor(wh.timeoutMs)
  const deliveries = deliveriesRepo(db)
  const fanOutOnce = fanOut(db)
  const sender = createSender({ timeoutMs: wh.timeoutMs, allowPrivate: wh.allowPrivate, caFile: wh.caFile, resolver: deps.resolver, connections: Math.min(wh.concurrency, MAX_SOCKETS_PER_ORIGIN) })

  let running = false
  let lateWake = false
  let ticking = false
  let again = false
  let fanOutWanted = true
  let backlog = false
  let timer: NodeJS.Timeout | undefined
  let inFlight = 0
  const slots = endpointSlots(wh.maxInFlightPerEndpoint)
  const sends = new Set<Promise<void>>()
  let buffer: Completion[] = []
  let flushing: Promise<void> | undefined
  let closing: Promise<void> | undefined

  // append runs inside the caller's transaction, which may not have committed yet: look now and
  // once more shortly after (the poll is the backstop).
  const onAppend = (): void => {
    fanOutWanted = true
    wake()
    if (!lateWake) {
      lateWake = true
      setTimeout(() => { lateWake = false; fanOutWanted = true; wake() }, 30).unref()
    }
  }

  function wake (): void {
    if (!running) return
    if (ticking) { again = true; return }
    if (timer !== undefined) { clearTimeout(timer); timer = undefined }
    void tick()
  }

  async function tick (): Promise<void> {
    ticking = true
    try {
      do {
        again = false
        if (fanOutWanted) {
          fanOutWanted = false
          const r = await fanOutOnce()
          if (r.events > 0) { again = true; fanOutWanted = true }
        }
        if (running) await claimAndSend()
      } while (again && running)
    } catch (err) {
      logger.error({ err }, 'webhook dispatcher pass failed')
    } finally {
      ticking = false
      if (running) {
        // Poll: other processes' events and retries that came due.
        timer = setTimeout(() => { timer = undefined; fanOutWanted = true; wake() }, wh.pollMs)
        timer.unref()
      }
    }
  }

  async function claimAndSend (): Promise<void> {
    const free = wh.concurrency - inFlight
    if (free <= 0) return
    const claims = await transaction(db, (conn) => deliveries.claimDue(conn, free, leaseMs, slots), 'READ COMMITTED')
    backlog = claims.length === free
    if (claims.length === 0) return
    const loaded = await deliveries.loadClaimed(claims)
    const parked = loaded.filter((d) => !d.enabled)
    if (parked.length > 0) await deliveries.park(db, parked)
    for (const d of loaded) {
      if (!d.enabled) continue
      if (d.claims - 1 - d.attempts >= MAX_INTERRUPTED_SENDS) abandonInterrupted(d)
      else start(d)
    }
  }

  /** Sending this delivery stopped its sender again and again (a crash each time): stop trying. */
  function abandonInterrupted (d: ClaimedDelivery): void {
    logger.error({ delivery: d.id, event: d.eventId }, 'webhook delivery abandoned: its sends were interrupted repeatedly')
    buffer.push({
      seq: d.seq,
      id: d.id,
      lease: d.lease,
      attempt: d.attempts + 1,
      status: 'abandoned',
      retryDelayMs: null,
      startedAt: new Date(),
      durationMs: 0,
      httpStatus: null,
      excerpt: null,
      error: `abandoned: ${MAX_INTERRUPTED_SENDS} sends were interrupted (the sending process stopped)`
    })
    void flush()
  }

  function start (d: ClaimedDelivery): void {
    inFlight++
    slots.take(d.endpointId)
    const p = deliver(d).catch((err: unknown) => { logger.error({ err, delivery: d.id }, 'webhook delivery failed unexpectedly') })
      .finally(() => {
        inFlight--
        slots.give(d.endpointId)
        sends.delete(p)
        // Refill when half the slots are free and more are waiting, or at once when idle.
        if (backlog && inFlight <= wh.concurrency / 2) wake()
      })
    sends.add(p)
  }

  async function deliver (d: ClaimedDelivery): Promise<void> {
    const startedAt = new Date()
    const secret = box.open(d.secretEnc)
    const t = Math.floor(startedAt.getTime() / 1000)
    const result = await sender.send(d.url, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'svc-event': d.eventType,
      'svc-event-id': d.eventId,
      'svc-delivery': d.id,
      'svc-signature': signatureHeader(secret, t, d.payload)
    }, d.payload)
    const attempt = d.attempts + 1
    const status = result.ok ? 'succeeded' : attempt >= maxAttempts ? 'abandoned' : 'failed'
    buffer.push({
      seq: d.seq,
      id: d.id,
      lease: d.lease,
      attempt,
      status,
      retryDelayMs: status === 'failed' ? wh.retrySchedule[attempt - 1] : null,
      startedAt,
      durationMs: result.durationMs,
      httpStatus: result.httpStatus,
      excerpt: result.excerpt,
      error: result.error
    })
    logger.debug({ delivery: d.id, event: d.eventId, attempt, status, httpStatus: result.httpStatus }, 'webhook attempt')
    void flush()
  }

  // Group commit: while one batch is written, the next accumulates.
  function flush (): Promise<void> {
    if (flushing !== undefined) return flushing
    flushing = (async () => {
      try {
        while (buffer.length > 0) {
          const batch = buffer
          buffer = []
          await transaction(db, (conn) => deliveries.complete(conn, batch)).catch((err: unknown) => {
            // The leases expire and the deliveries are attempted again: at least once.
            logger.error({ err, count: batch.length }, 'could not record webhook attempts')
          })
        }
      } finally {
        flushing = undefined
      }
    })()
    return flushing
  }

  async function drain (): Promise<void> {
    running = false
    outboxSignal.off('append', onAppend)
    if (timer !== undefined) clearTimeout(timer)
    while (ticking) await new Promise((resolve) => setTimeout(resolve, 5))
    await Promise.allSettled([...sends])
    await flush()
    await sender.close()
  }

  return {
    start (): void {
      if (running) return
      running = true
      outboxSignal.on('append', onAppend)
      wake()
    },
    get inFlight (): number { return inFlight },
    /** Stops claiming, lets in-flight attempts finish (each is bounded), records them, closes sockets. */
    close (): Promise<void> {
      closing ??= drain()
      return closing
    }
  }
}
export type WebhookDispatcher = ReturnType<typeof webhookDispatcher>
