// Webhook deliveries and their attempts. The dispatcher's claim walks ix_deliveries_next
// (migration 004) with FOR UPDATE SKIP LOCKED in READ COMMITTED; completions are written in
// batches, each guarded by the lease it was claimed with (a process whose lease expired and was
// taken over cannot overwrite the newer attempt's outcome).
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import type { Conn, Db } from '../db.js'

/**
 * The claim's view of the sender's per-endpoint cap (webhooks/endpoint-slots.ts implements it):
 * endpoints with no room left, and the room of one.
 */
export interface ClaimSlots {
  full: () => string[]
  room: (endpointId: string) => number
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'abandoned'
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'abandoned']

export interface DeliveryRow {
  id: string
  eventId: string
  eventType: string
  endpointId: string
  workspaceId: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: Date | null
  lastHttpStatus: number | null
  lastResponseExcerpt: string | null
  lastError: string | null
  createdAt: Date
  updatedAt: Date
}

/** A claimed delivery with everything needed to send it. */
export interface ClaimedDelivery {
  seq: number
  id: string
  attempts: number
  /** Claims so far, this one included: claims - 1 - attempts sends were cut short by a crash. */
  claims: number
  lease: Date
  eventId: string
  eventType: string
  payload: string
  endpointId: string
  url: string
  secretEnc: Buffer
  enabled: boolean
}

export interface Completion {
  seq: number
  id: string
  lease: Date
  attempt: number
  status: DeliveryStatus
  /** For `failed`: when to try again, counted on the database clock. */
  retryDelayMs: number | null
  startedAt: Date
  durationMs: number
  httpStatus: number | null
  excerpt: string | null
  error: string | null
}

const VIEW = `SELECT d.id, d.event_id, e.type AS event_type, d.endpoint_id, d.workspace_id, d.status, d.attempts,
  d.next_attempt_at,
  d.last_http_status, d.last_response_excerpt, d.last_error, d.created_at, d.updated_at
  FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`

function toDelivery (r: RowDataPacket): DeliveryRow {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    endpointId: r.endpoint_id,
    workspaceId: r.workspace_id,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastHttpStatus: r.last_http_status,
    lastResponseExcerpt: r.last_response_excerpt,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at
  }
}

export interface DeliveriesRepo {
  /** New deliveries, due at once. */
  insertMany(conn: Conn | Db, rows: Array<{
    id: string
    eventId: string
    endpointId: string
    workspaceId: string
  }>): Promise<void>
  get(id: string): Promise<DeliveryRow | undefined>
  listByEndpoint(endpointId: string, options: {
    status?: DeliveryStatus
    limit: number
  }): Promise<DeliveryRow[]>
  attempts(deliveryId: string): Promise<Array<{
    attempt: number
    startedAt: Date
    durationMs: number
    httpStatus: number | null
    excerpt: string | null
    error: string | null
  }>>
  /**
   * Claims up to `limit` due deliveries in one READ COMMITTED transaction: lock (skipping rows
   * other processes hold), then move next_attempt_at to the lease expiry so they are not due
   * again unless this process dies. Times are the database's clock, shared by every process.
   */
  claimDue(conn: Conn, limit: number, leaseMs: number, slots?: ClaimSlots): Promise<Array<{
    seq: number
    lease: Date
  }>>
  /**
   * Whether the dispatcher has anything to do: an event not fanned out yet, or a delivery due.
   * One autocommit read on two indexes (ix_events_fanout, ix_deliveries_next), asked by the
   * poll before its fan-out and claim transactions.
   */
  anyDue(): Promise<boolean>
  /** Event and endpoint of claimed deliveries, read after the claim commits (no locks held). */
  loadClaimed(claims: Array<{
    seq: number
    lease: Date
  }>): Promise<ClaimedDelivery[]>
  /** Records attempts and outcomes of many deliveries in one transaction. */
  complete(conn: Conn, done: Completion[]): Promise<void>
  /** Claimed while its endpoint is disabled: not sent, no attempt used; enabling resumes it. */
  park(conn: Conn | Db, claims: Array<{
    seq: number
    lease: Date
  }>): Promise<void>
  /** Disable: open deliveries that are not in flight stop being due. */
  parkEndpoint(conn: Conn, endpointId: string): Promise<void>
  /** Enable: parked open deliveries are due at once. */
  resumeEndpoint(conn: Conn, endpointId: string): Promise<number>
}

export function createDeliveriesRepo (db: Db): DeliveriesRepo {
  return {
    async insertMany (
      conn: Conn | Db,
      rows: Array<{ id: string, eventId: string, endpointId: string, workspaceId: string }>
    ): Promise<void> {
      if (rows.length === 0) return
      await conn.query(
        'INSERT INTO webhook_deliveries (id, event_id, endpoint_id, workspace_id, next_attempt_at) VALUES ?',
        [rows.map((r) => [r.id, r.eventId, r.endpointId, r.workspaceId, { toSqlString: () => 'UTC_TIMESTAMP(3)' }])]
      )
    },
    async get (id: string): Promise<DeliveryRow | undefined> {
      const [rows] = await db.execute<RowDataPacket[]>(`${VIEW} WHERE d.id = ?`, [id])
      return rows[0] === undefined ? undefined : toDelivery(rows[0])
    },
    async listByEndpoint (
      endpointId: string,
      options: { status?: DeliveryStatus, limit: number }
    ): Promise<DeliveryRow[]> {
      const where = options.status === undefined ? '' : ' AND d.status = ?'
      const params: unknown[] = options.status === undefined ? [endpointId] : [endpointId, options.status]
      const [rows] = await db.query<RowDataPacket[]>(
        `${VIEW} WHERE d.endpoint_id = ?${where} ORDER BY d.seq DESC LIMIT ?`,
        [...params, options.limit]
      )
      return rows.map(toDelivery)
    },
    async attempts (
      deliveryId: string
    ): Promise<
      Array<{
        attempt: number
        startedAt: Date
        durationMs: number
        httpStatus: number | null
        excerpt: string | null
        error: string | null
      }>
    > {
      const [rows] = await db.execute<RowDataPacket[]>(
        'SELECT attempt, started_at, duration_ms, http_status, response_excerpt, error FROM webhook_attempts WHERE ' +
          'delivery_id = ? ORDER BY attempt, id',
        [deliveryId]
      )
      return rows.map((r) => ({
        attempt: r.attempt,
        startedAt: r.started_at,
        durationMs: r.duration_ms,
        httpStatus: r.http_status,
        excerpt: r.response_excerpt,
        error: r.error
      }))
    },

    async claimDue (
      conn: Conn,
      limit: number,
      leaseMs: number,
      slots?: ClaimSlots
    ): Promise<Array<{ seq: number, lease: Date }>> {
      // Endpoints at their in-flight cap are skipped (a filter on the rows read: the ORDER BY stays
      // index-ordered), and no more of one endpoint is taken than it has room for; when that leaves
      // the claim short, up to two more rounds look past the endpoints that filled up.
      const taken = new Map<string, number>()
      const kept: RowDataPacket[] = []
      let now: Date | undefined
      for (let round = 0; round < 3 && kept.length < limit; round++) {
        const full = [
          ...(slots?.full() ?? []),
          ...[...taken].filter(([id, n]) => n >= (slots?.room(id) ?? Infinity)).map(([id]) => id)
        ]
        const where = ['next_attempt_at <= UTC_TIMESTAMP(3)']
        const args: unknown[] = []
        if (full.length > 0) {
          where.push('endpoint_id NOT IN (?)')
          args.push(full)
        }
        if (kept.length > 0) {
          where.push('seq NOT IN (?)')
          args.push(kept.map((r) => r.seq))
        }
        const [rows] = await conn.query<RowDataPacket[]>(
          `SELECT seq, endpoint_id, UTC_TIMESTAMP(3) AS now FROM webhook_deliveries
          FORCE INDEX (ix_deliveries_next) WHERE ${where.join(' AND ')} ORDER BY next_attempt_at LIMIT ? FOR UPDATE ` +
            'SKIP LOCKED',
          [...args, limit - kept.length]
        )
        now ??= rows[0]?.now as Date | undefined
        let trimmed = false
        for (const r of rows) {
          const n = taken.get(r.endpoint_id) ?? 0
          if (slots !== undefined && n >= slots.room(r.endpoint_id)) {
            trimmed = true
            continue
          }
          taken.set(r.endpoint_id, n + 1)
          kept.push(r)
        }
        if (!trimmed || slots === undefined) break
      }
      if (kept.length === 0 || now === undefined) return []
      const lease = new Date(now.getTime() + leaseMs)
      const seqs = kept.map((r) => Number(r.seq))
      await conn.query(
        'UPDATE webhook_deliveries SET next_attempt_at = ?, lease_expires_at = ?, claims = claims + 1 WHERE seq IN (?)',
        [lease, lease, seqs]
      )
      return seqs.map((seq) => ({ seq, lease }))
    },
    async anyDue (): Promise<boolean> {
      const [rows] = await db.execute<RowDataPacket[]>(
        `SELECT EXISTS (SELECT 1 FROM events FORCE INDEX (ix_events_fanout) WHERE fanned_out = 0)
          OR EXISTS (SELECT 1 FROM webhook_deliveries FORCE INDEX (ix_deliveries_next)
            WHERE next_attempt_at <= UTC_TIMESTAMP(3)) AS due`)
      return Number(rows[0]?.due) === 1
    },
    async loadClaimed (claims: Array<{ seq: number, lease: Date }>): Promise<ClaimedDelivery[]> {
      if (claims.length === 0) return []
      const leases = new Map(claims.map((c) => [c.seq, c.lease]))
      const [rows] = await db.query<RowDataPacket[]>(
        `SELECT d.seq, d.id, d.attempts, d.claims, e.id AS event_id, e.type, e.payload, w.id AS endpoint_id, w.url,
          w.secret_enc, w.enabled
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE d.seq IN (?)`,
        [claims.map((c) => c.seq)]
      )
      return rows.map((r) => ({
        seq: Number(r.seq),
        id: r.id,
        attempts: r.attempts,
        claims: r.claims,
        lease: leases.get(Number(r.seq)) as Date,
        eventId: r.event_id,
        eventType: r.type,
        payload: r.payload,
        endpointId: r.endpoint_id,
        url: r.url,
        secretEnc: r.secret_enc,
        enabled: r.enabled === 1
      }))
    },
    async complete (conn: Conn, done: Completion[]): Promise<void> {
      if (done.length === 0) return
      await conn.query(
        'INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, http_status, response_excerpt, ' +
          'error) VALUES ?',
        [done.map((c) => [c.id, c.attempt, c.startedAt, c.durationMs, c.httpStatus, c.excerpt, c.error])]
      )
      const rows = done.map((c) =>
        conn.format('SELECT ? AS seq, ? AS lease, ? AS status, ? AS delay_ms, ? AS http, ? AS excerpt, ? AS err', [
          c.seq,
          c.lease,
          c.status,
          c.retryDelayMs,
          c.httpStatus,
          c.excerpt,
          c.error
        ])
      )
      await conn.query(`UPDATE webhook_deliveries d JOIN (${rows.join(' UNION ALL ')}) r ON d.seq = r.seq AND d.lease_expires_at = r.lease
        SET d.status = r.status, d.attempts = d.attempts + 1, d.next_attempt_at = IF(r.delay_ms IS NULL, NULL, UTC_TIMESTAMP(3) + INTERVAL r.delay_ms * 1000 MICROSECOND), d.lease_expires_at = NULL,
            d.last_http_status = r.http, d.last_response_excerpt = r.excerpt, d.last_error = r.err, d.updated_at = UTC_TIMESTAMP(3)`)
    },
    async park (conn: Conn | Db, claims: Array<{ seq: number, lease: Date }>): Promise<void> {
      for (const c of claims) {
        await conn.execute(
          'UPDATE webhook_deliveries SET next_attempt_at = NULL, lease_expires_at = NULL WHERE seq = ? AND ' +
            'lease_expires_at = ?',
          [c.seq, c.lease]
        )
      }
    },
    async parkEndpoint (conn: Conn, endpointId: string): Promise<void> {
      await conn.execute(
        `UPDATE webhook_deliveries SET next_attempt_at = NULL
        WHERE endpoint_id = ? AND status IN ('pending', 'failed') AND lease_expires_at IS NULL`,
        [endpointId]
      )
    },
    async resumeEndpoint (conn: Conn, endpointId: string): Promise<number> {
      const [res] = await conn.execute<ResultSetHeader>(
        `UPDATE webhook_deliveries SET next_attempt_at = UTC_TIMESTAMP(3)
        WHERE endpoint_id = ? AND status IN ('pending', 'failed') AND next_attempt_at IS NULL`,
        [endpointId]
      )
      return res.affectedRows
    }
  }
}
