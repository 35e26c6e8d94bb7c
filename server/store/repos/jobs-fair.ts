// Fair job claims (tenant isolation): a claim serves the workspaces with queued jobs in turn
// (workspace-id order, starting after the last one this process served), one job at a time to
// each up to its room under the per-workspace running cap, so one workspace's backlog never
// holds another's first job behind it. Every read walks ix_jobs_fair (status, workspace_id, seq,
// migration 010): the workspace list is a loose index scan, and each workspace's oldest jobs are
// an equality range ordered by seq (no filesort, so FOR UPDATE SKIP LOCKED keeps working).
import type { RowDataPacket } from 'mysql2/promise'
import type { Conn } from '../db.js'

export const FAIR_WORKSPACES_SQL = `SELECT workspace_id FROM render_jobs FORCE INDEX (ix_jobs_fair)
  WHERE status = 'queued' AND workspace_id > ? GROUP BY workspace_id ORDER BY workspace_id LIMIT ?`
/** One part of the claim's UNION per workspace: its oldest due jobs after `seq`, at most its share. */
export const fairPartSql = (columns: string): string => `(SELECT ${columns}, NULL AS document_expires_at FROM
  render_jobs j FORCE INDEX (ix_jobs_fair)
  WHERE j.status = 'queued' AND j.workspace_id = ? AND j.seq > ? AND (j.not_before IS NULL OR j.not_before <=
    UTC_TIMESTAMP(3))
  ORDER BY j.seq LIMIT ? FOR UPDATE SKIP LOCKED)`
const RUNNING_SQL = `SELECT workspace_id, COUNT(*) AS n FROM render_jobs FORCE INDEX (ix_jobs_fair)
  WHERE status = 'running' AND workspace_id IN (?) GROUP BY workspace_id`

/** Where this process's next claim starts (per jobs repo, not module state), and the job columns read. */
export interface FairTurn { cursor: string, partSql: string }
export function fairTurn (columns: string): FairTurn { return { cursor: '', partSql: fairPartSql(columns) } }

/** Round-robin shares: one job at a time to each workspace in turn, none past its room. */
export function fairShares (rooms: number[], limit: number): number[] {
  const shares = rooms.map(() => 0)
  let left = limit
  for (let progress = true; progress && left > 0;) {
    progress = false
    for (let i = 0; i < rooms.length && left > 0; i++) {
      const share = shares[i]! // shares has rooms' length
      if (share < rooms[i]!) { shares[i] = share + 1; left--; progress = true }
    }
  }
  return shares
}

/**
 * The next `k` workspaces with queued jobs after `after`, wrapping around, less those already
 * `seen`. `whole` is true when the reads saw every workspace with queued jobs (fewer than asked
 * for came back): a further round could only find workspaces already seen.
 */
async function workspacesAfter (
  conn: Conn,
  after: string,
  k: number,
  seen: Set<string>
): Promise<{ list: string[], whole: boolean }> {
  const [rows] = await conn.query<RowDataPacket[]>(FAIR_WORKSPACES_SQL, [after, k])
  const list = rows.map((r) => r.workspace_id as string)
  let whole = list.length < k && after === ''
  if (list.length < k && after !== '') {
    const [wrapped] = await conn.query<RowDataPacket[]>(FAIR_WORKSPACES_SQL, ['', k - list.length])
    for (const r of wrapped) if (!list.includes(r.workspace_id)) list.push(r.workspace_id)
    whole = wrapped.length < k - rows.length
  }
  return { list: list.filter((w) => !seen.has(w)), whole }
}

interface Wanted { workspace: string, afterSeq: number, share: number }

async function lockParts (conn: Conn, turn: FairTurn, wanted: Wanted[]): Promise<RowDataPacket[]> {
  const parts = wanted.filter((w) => w.share > 0)
  if (parts.length === 0) return []
  const [rows] = await conn.query<RowDataPacket[]>(parts.map(() => turn.partSql).join(' UNION ALL '),
    parts.flatMap((w) => [w.workspace, w.afterSeq, w.share]))
  return rows
}

/**
 * Locks up to `limit` queued jobs, fairly: up to three rounds over further workspaces (rows other
 * claimers hold are skipped, so a round may come back short), then one top-up round for the
 * workspaces that filled their share and may have more. Runs inside the claim's transaction.
 */
export async function fairPick (
  conn: Conn,
  turn: FairTurn,
  limit: number,
  maxRunning: number
): Promise<RowDataPacket[]> {
  const picked: RowDataPacket[] = []
  const seen = new Set<string>()
  const room = new Map<string, number>()
  const last = new Map<string, number>()
  const filled: string[] = []
  let after = turn.cursor
  for (let round = 0; round < 3 && picked.length < limit; round++) {
    const { list, whole } = await workspacesAfter(conn, after, limit - picked.length, seen)
    const lastListed = list.at(-1)
    if (lastListed === undefined) break
    list.forEach((w) => seen.add(w))
    after = lastListed
    const running = maxRunning === Number.MAX_SAFE_INTEGER ? new Map<string, number>() : await runningOf(conn, list)
    for (const w of list) room.set(w, Math.max(0, maxRunning - (running.get(w) ?? 0)))
    const shares = fairShares(
      list.map((w) => room.get(w) as number),
      limit - picked.length
    )
    const rows = await lockParts(
      conn,
      turn,
      list.map((w, i) => ({ workspace: w, afterSeq: 0, share: shares[i] ?? 0 }))
    )
    took(rows)
    list.forEach((w, i) => {
      const share = shares[i] ?? 0
      if (share > 0 && rows.filter((r) => r.workspace_id === w).length === share) filled.push(w)
    })
    const servedLast = [...list].reverse().find((_, i) => (shares[list.length - 1 - i] ?? 0) > 0)
    if (servedLast !== undefined) turn.cursor = servedLast
    // Every workspace with queued jobs was listed: another round would read the list again
    // (two statements) to find nobody new. One workspace's drain claimed with 4-5 such reads.
    if (whole) break
  }
  if (picked.length < limit && filled.length > 0) {
    const shares = fairShares(
      filled.map((w) => room.get(w) as number),
      limit - picked.length
    )
    took(
      await lockParts(
        conn,
        turn,
        filled.map((w, i) => ({ workspace: w, afterSeq: last.get(w) ?? 0, share: shares[i] ?? 0 }))
      )
    )
  }
  return picked

  function took (rows: RowDataPacket[]): void {
    for (const r of rows) {
      picked.push(r)
      room.set(r.workspace_id, (room.get(r.workspace_id) ?? 1) - 1)
      last.set(r.workspace_id, Math.max(last.get(r.workspace_id) ?? 0, Number(r.seq)))
    }
  }
}

async function runningOf (conn: Conn, workspaces: string[]): Promise<Map<string, number>> {
  const [rows] = await conn.query<RowDataPacket[]>(RUNNING_SQL, [workspaces])
  return new Map(rows.map((r) => [r.workspace_id as string, Number(r.n)]))
}
