// The shared sliding window of each key's requests (table rate_limit_windows, migration 008):
// a ring of SLOTS slots of SLOT_MS, each holding the tokens that nodes leased in it. A lease is
// one atomic UPDATE on the key's row that clears slots older than the ring, grants up to the
// asked block from what the ring leaves under the limit (never more than a tenth of it:
// ROOM_SHARE), and adds it to the current slot. Time
// is the database's (NOW(3)), so the nodes' clocks do not matter for the count.
import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise'
import type { Db } from '../db.js'

export const SLOT_MS = 3000
/** 60 s / 3 s + 1: a lease lives within its slot, so any 60 s of use touches at most 21 slots. */
export const SLOTS = 21
const RING = [...Array(SLOTS).keys()]
const CUR = `FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000 DIV ${SLOT_MS})`
const MS_INTO = `FLOOR(MOD(UNIX_TIMESTAMP(NOW(3)) * 1000, ${SLOT_MS}))`
/** Column k holds slot `epoch - MOD(epoch - k, SLOTS)`; it counts only while that is in the ring. */
const live = (k: number): string => `IF(epoch - MOD(epoch - ${k}, ${SLOTS}) > ${CUR} - ${SLOTS}, s${k}, 0)`
// The grant, remaining and slot travel back in the OK packet's insert id (LAST_INSERT_ID(expr)),
// so a lease is one statement: 16 bits granted, 16 bits remaining, 9 bits slot, 12 bits ms.
const PACK = 'LAST_INSERT_ID(last_grant * 137438953472 + GREATEST(0, LEAST(? - ' +
  `(${RING.map((k) => `s${k}`).join(' + ')}), 65535)) * 2097152` +
  ` + MOD(${CUR}, 512) * 4096 + ${MS_INTO})`
/** What the ring leaves under the limit (the `?`), before this lease. */
const ROOM = `(? - (${RING.map(live).join(' + ')}))`
/**
 * A lease takes at most 1/ROOM_SHARE of that room (rounded up): nodes hold blocks while they
 * spend them, and tokens one node holds unspent are refused to the others, so blocks shrink as
 * the window fills and the last ROOM_SHARE tokens go out one at a time. Round-robined over n
 * nodes (n < ROOM_SHARE), a block is spent before the room it was cut from runs out: the window
 * fills to its limit with (almost) nothing left unspent on other nodes (issue 30, finding 7).
 */
export const ROOM_SHARE = 10
const LEASE_SQL = `UPDATE rate_limit_windows SET
  last_grant = GREATEST(0, LEAST(?, ${ROOM}, CEIL(${ROOM} / ${ROOM_SHARE}))),
  ${RING.map((k) => `s${k} = ${live(k)} + IF(MOD(${CUR}, ${SLOTS}) = ${k}, last_grant, 0)`).join(',\n  ')},
  epoch = ${CUR},
  leases = ${PACK}
  WHERE key_id = ?`
export const MAX_BLOCK = 65535

export interface Lease {
  granted: number
  /** The key's tokens left in the window right after this lease (capped at 65,535). */
  remaining: number
  /** The slot (mod 512) the lease was granted in, and how far into it the database was. */
  slotMod: number
  msIntoSlot: number
}

export interface WindowState { nowMs: number, epoch: number, slots: number[] }

export interface RateLimitsRepo {
  /** Leases up to `block` tokens of a window of `limit`; undefined when the key has no row yet. */
  lease(keyId: string, limit: number, block: number): Promise<Lease | undefined>
  create(keyId: string): Promise<void>
  /** Gives back unused tokens of a lease of `slot`, unless that slot has left the ring already. */
  giveBack(keyId: string, slot: number, tokens: number): Promise<void>
  window(keyId: string): Promise<WindowState | undefined>
}

export function createRateLimitsRepo (db: Db): RateLimitsRepo {
  return {
    async lease (keyId: string, limit: number, block: number): Promise<Lease | undefined> {
      const [r] = await db.query<ResultSetHeader>(LEASE_SQL, [Math.min(block, MAX_BLOCK), limit, limit, limit, keyId])
      if (r.affectedRows === 0) return undefined
      const packed = Number(r.insertId)
      return {
        granted: Math.floor(packed / 137438953472),
        remaining: Math.max(0, Math.floor(packed / 2097152) % 65536),
        slotMod: Math.floor(packed / 4096) % 512,
        msIntoSlot: packed % 4096
      }
    },
    async create (keyId: string): Promise<void> {
      await db.query('INSERT IGNORE INTO rate_limit_windows (key_id) VALUES (?)', [keyId])
    },
    async giveBack (keyId: string, slot: number, tokens: number): Promise<void> {
      const k = ((slot % SLOTS) + SLOTS) % SLOTS
      await db.query(`UPDATE rate_limit_windows SET s${k} = GREATEST(0, s${k} - ?) WHERE key_id = ? AND epoch < ? ` +
        `+ ${SLOTS}`,
      [tokens, keyId, slot])
    },
    async window (keyId: string): Promise<WindowState | undefined> {
      const [rows] = await db.query<RowDataPacket[]>(
        `SELECT epoch, ${RING.map((k) => `s${k}`).join(', ')}, FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000) AS now_ms
         FROM rate_limit_windows WHERE key_id = ?`, [keyId])
      const [r] = rows
      if (r === undefined) return undefined
      return { nowMs: Number(r.now_ms), epoch: Number(r.epoch), slots: RING.map((k) => Number(r[`s${k}`])) }
    }
  }
}
