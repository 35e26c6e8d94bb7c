import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import type { RowDataPacket } from 'mysql2/promise'
import { instanceStatus } from '../../../server/store/instance.js'
import { createDb } from '../../../server/store/db.js'
import { serverUrl } from '../../helpers/db.js'

/** Scheduling policy of a thread (/proc/…/stat field 41; 3 = SCHED_BATCH). */
function policy (statFile: string): number {
  const stat = readFileSync(statFile, 'utf8')
  // Fields after the command name, which may hold spaces: field 3 (state) is the first.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3])
}

// The private instance of make run / make test / make bench (server/store/instance.ts) shares
// the cores with svc: it runs its thread pool, and every one of its threads is SCHED_BATCH, so a
// woken MariaDB thread does not preempt svc's HTTP thread.
test('the private MariaDB runs its thread pool, every thread SCHED_BATCH', async (t) => {
  const home = process.env.SVC_TEST_HOME
  if (home === undefined) throw new Error('SVC_TEST_HOME is not set: run the suite with `make test` (scripts/test.sh)')
  const status = await instanceStatus(home)
  assert.equal(status.running, true)
  const pid = status.pid as number
  const tids = readdirSync(`/proc/${pid}/task`)
  assert.ok(tids.length > 1)
  const policies = tids.map((tid) => policy(`/proc/${pid}/task/${tid}/stat`))
  assert.deepEqual(new Set(policies), new Set([3]),
    'every MariaDB thread SCHED_BATCH (an instance started before this change: svc db stop, then make test)')
  const db = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
  t.after(async () => { await db.end() })
  const [rows] = await db.query<RowDataPacket[]>('SELECT @@thread_handling AS h, @@thread_pool_stall_limit AS s')
  assert.deepEqual({ ...rows[0] }, { h: 'pool-of-threads', s: 20 })
})
