// Per-endpoint in-flight cap: a claim takes no more of one endpoint's due deliveries than it has
// room for, and skips endpoints that are full, so another workspace's endpoint is served at once.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createTestDatabase } from '../../helpers/db.js'
import type { TestDatabase } from '../../helpers/db.js'
import { transaction } from '../../../server/store/db.js'
import { createDeliveriesRepo } from '../../../server/store/repos/webhooks-deliveries.js'
import { createEndpointSlots } from '../../../server/webhooks/endpoint-slots.js'
import type { RowDataPacket } from 'mysql2'

let database: TestDatabase
before(async () => { database = await createTestDatabase('whslots') })
after(async () => { await database.drop() })

/** `n` due deliveries to a fresh endpoint, due `ageMs` ago (older first in the claim's order). */
async function due (n: number, ageMs: number): Promise<string> {
  const endpoint = randomUUID()
  for (let i = 0; i < n; i++) {
    await database.db.execute(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, workspace_id, next_attempt_at)
      VALUES (?, ?, ?, ?, UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND)`, [randomUUID(), randomUUID(), endpoint, randomUUID(), (ageMs - i) * 1000])
  }
  return endpoint
}

async function endpointsOf (seqs: number[]): Promise<string[]> {
  const [rows] = await database.db.query<RowDataPacket[]>('SELECT endpoint_id FROM webhook_deliveries WHERE seq IN (?) ORDER BY seq', [seqs])
  return rows.map((r) => r.endpoint_id)
}

test('B\'s slow endpoint with 50 due deliveries holds at most its cap; A\'s later delivery is claimed in the same claim', async () => {
  const repo = createDeliveriesRepo(database.db)
  const b = await due(50, 60_000)
  const a = await due(1, 1_000)
  const slots = createEndpointSlots(3)
  const first = await transaction(database.db, (conn) => repo.claimDue(conn, 10, 30_000, slots))
  const got = await endpointsOf(first.map((c) => c.seq))
  assert.equal(got.filter((e) => e === b).length, 3, 'no more than the cap of B\'s endpoint')
  assert.equal(got.filter((e) => e === a).length, 1, 'A\'s delivery is in the same claim')
  for (let i = 0; i < 3; i++) slots.take(b)
  // B's endpoint is full now (3 sends in flight): the next claim takes none of its 47 others.
  const second = await transaction(database.db, (conn) => repo.claimDue(conn, 10, 30_000, slots))
  assert.deepEqual(second, [])
  slots.give(b)
  const third = await transaction(database.db, (conn) => repo.claimDue(conn, 10, 30_000, slots))
  assert.deepEqual(await endpointsOf(third.map((c) => c.seq)), [b], 'one freed slot, one more of B\'s')
})
