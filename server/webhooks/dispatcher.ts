// The dispatcher that runs in every server process: fan out new events, claim due deliveries
// (SKIP LOCKED, READ COMMITTED, with a lease), send them signed with bounded concurrency, and
// write outcomes in batches. A process that dies mid-send leaves its deliveries leased; they
// come due again when the lease expires and are sent again with the same event id (at least once).
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { isRowFault, transaction } from '../store/db.js'
import { createBatcher, isolating } from '../util/batcher.js'
import { createClaimLoop } from '../util/claim-loop.js'
import type { Db } from '../store/db.js'
import type { Keyring } from '../secrets/keyring.js'
import type { Repos } from '../store/repos/index.js'
import { secretRef } from '../store/repos/webhooks.js'
import type { ClaimedDelivery, Completion } from '../store/repos/webhooks-deliveries.js'
import type { Resolver } from '../net/address-guard.js'
import { createFanOut } from './fanout.js'
import type { Outbox } from './outbox.js'
import { createSender } from './sender.js'
import type { SendResult } from './sender.js'
import { signatureHeader } from './signature.js'
import { createEndpointSlots } from './endpoint-slots.js'

/** Sends cut short by a crash (no attempt recorded) before a delivery is abandoned. */
export const MAX_INTERRUPTED_SENDS = 3
export const USER_AGENT = 'Svc-Webhooks/1.0'
// One receiver never gets more sockets than this from one process; further sends queue in the Agent.
const MAX_SOCKETS_PER_ORIGIN = 64

export interface DispatcherDeps {
  db: Db
  box: Pick<Keyring, 'open'>
  logger: Logger
  repos: Pick<Repos, 'events' | 'webhooks' | 'deliveries'>
  /** This process's outbox: its appends (after commit) wake the dispatcher. */
  outbox: Pick<Outbox, 'onAppend'>
  /** Injected in tests to swap DNS answers. */
  resolver?: Resolver
  /** Default: longer than any attempt can last (3 × timeout + 1 s). */
  leaseMs?: number
  /** Every attempt's outcome and duration (metrics). */
  onAttempt?: (status: string, durationMs: number) => void
}

export function leaseFor (timeoutMs: number): number { return 3 * timeoutMs + 1000 }

export interface WebhookDispatcher {
  start(): void
  readonly inFlight: number
  /** Stops claiming, lets in-flight attempts finish (each is bounded), records them, closes sockets. */
  close(): Promise<void>
}

export function createWebhookDispatcher (config: Config, deps: DispatcherDeps): WebhookDispatcher {
  const { db, box, logger } = deps
  const wh = config.webhooks
  const maxAttempts = wh.retrySchedule.length + 1
  const leaseMs = deps.leaseMs ?? leaseFor(wh.timeoutMs)
  const deliveries = deps.repos.deliveries
  const fanOutOnce = createFanOut(db, deps.repos)
  const sender = createSender({
    timeoutMs: wh.timeoutMs,
    allowPrivate: wh.allowPrivate,
    caFile: wh.caFile,
    resolver: deps.resolver,
    connections: Math.min(wh.concurrency, MAX_SOCKETS_PER_ORIGIN)
  })

  let unsubscribe: (() => void) | undefined
  let fanOutWanted = true
  let backlog = false
  let inFlight = 0
  const slots = createEndpointSlots(wh.maxInFlightPerEndpoint)
  const sends = new Set<Promise<void>>()
  let closing: Promise<void> | undefined
  // Attempts and outcomes, group-committed through the one batcher; a row the database refuses
  // is dropped alone (logged), the others of its batch are written.
  const outcomes = createBatcher<Completion, undefined>(isolating(async (batch) => {
    await transaction(db, (conn) => deliveries.complete(conn, batch))
    return batch.map(() => undefined)
  }, {
    isItemFault: isRowFault,
    onDrop: (c, err) => {
      logger.error({ err, delivery: c.id, attempt: c.attempt }, 'webhook attempt refused by the database; dropped')
    }
  }))
  const record = (c: Completion): void => {
    // A record that could not be written: the lease expires and the delivery is attempted again (at least once).
    outcomes.push(c).catch((err: unknown) => { logger.error({ err, delivery: c.id }, 'could not record webhook attempt') })
  }

  /** One pass: fan out new events (when told of some), then claim and start due deliveries. */
  async function pass (): Promise<boolean> {
    let again = false
    if (fanOutWanted) {
      fanOutWanted = false
      const r = await fanOutOnce()
      if (r.events > 0) { again = true; fanOutWanted = true }
    }
    if (loop.accepting) await claimAndSend()
    return again
  }
  // Poll: other processes' events and retries that came due.
  const loop = createClaimLoop(pass, {
    pollMs: wh.pollMs,
    onPoll: () => { fanOutWanted = true },
    probe: async () => await deliveries.anyDue(),
    onError: (err) => { logger.error({ err }, 'webhook dispatcher pass failed') }
  })

  // The outbox calls this after the appending transaction has committed: the rows are visible.
  const onAppend = (): void => {
    fanOutWanted = true
    loop.wake()
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
    logger.error({ delivery: d.id, event: d.eventId }, 'webhook delivery abandoned: its sends were interrupted ' +
      'repeatedly')
    record({
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
  }

  function start (d: ClaimedDelivery): void {
    inFlight++
    slots.take(d.endpointId)
    const p = deliver(d).catch((err: unknown) => {
      logger.error({ err, delivery: d.id }, 'webhook delivery failed unexpectedly')
    })
      .finally(() => {
        inFlight--
        slots.give(d.endpointId)
        sends.delete(p)
        // Refill when half the slots are free and more are waiting, or at once when idle.
        if (backlog && inFlight <= wh.concurrency / 2) loop.wake()
      })
    sends.add(p)
  }

  async function deliver (d: ClaimedDelivery): Promise<void> {
    const startedAt = new Date()
    let secret: string
    try {
      secret = box.open(d.secretEnc, secretRef(d.endpointId))
    } catch (err) {
      // Sealed under a key no longer configured, or not this endpoint's: nothing is sent, the
      // attempt fails like a refused send (retried on schedule, so restoring the key heals it).
      const keyId = (err as { keyId?: unknown }).keyId
      logger.error({ delivery: d.id, endpoint: d.endpointId, keyId }, (err as Error).message)
      const error = 'signing secret cannot be opened (see the server log)'
      return complete(d, startedAt, { ok: false, httpStatus: null, excerpt: null, error, durationMs: 0 })
    }
    const t = Math.floor(startedAt.getTime() / 1000)
    const result = await sender.send(d.url, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'svc-event': d.eventType,
      'svc-event-id': d.eventId,
      'svc-delivery': d.id,
      'svc-signature': signatureHeader(secret, t, d.payload)
    }, d.payload)
    complete(d, startedAt, result)
  }

  function complete (d: ClaimedDelivery, startedAt: Date, result: SendResult): void {
    const attempt = d.attempts + 1
    const status = result.ok ? 'succeeded' : attempt >= maxAttempts ? 'abandoned' : 'failed'
    record({
      seq: d.seq,
      id: d.id,
      lease: d.lease,
      attempt,
      status,
      // 'failed' only while attempt < maxAttempts: the schedule has a delay for it
      retryDelayMs: status === 'failed' ? wh.retrySchedule[attempt - 1]! : null,
      startedAt,
      durationMs: result.durationMs,
      httpStatus: result.httpStatus,
      excerpt: result.excerpt,
      error: result.error
    })
    deps.onAttempt?.(status, result.durationMs)
    logger.debug({ delivery: d.id, event: d.eventId, attempt, status, httpStatus: result.httpStatus }, 'webhook attempt')
  }

  async function drain (): Promise<void> {
    unsubscribe?.()
    await loop.close()
    await Promise.allSettled([...sends])
    await outcomes.flush()
    await sender.close()
  }

  return {
    start (): void {
      if (loop.accepting || closing !== undefined) return
      unsubscribe = deps.outbox.onAppend(onAppend)
      loop.start()
    },
    get inFlight (): number { return inFlight },
    close (): Promise<void> {
      closing ??= drain()
      return closing
    }
  }
}
