// Shared by the templates tests: example files, a workspace, and an outbox that records what
// publish appends (and writes it to the events table on the caller's connection).
import { readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import type { Db, Tx } from '../../../server/store/db.js'
import { createWorkspacesRepo } from '../../../server/store/repos/workspaces.js'

const examples = new URL('../../../../examples/', import.meta.url)

export function exampleText (name: string): string {
  return readFileSync(new URL(`templates/${name}.json`, examples), 'utf8')
}

/** The example template under another code, optionally changed by `edit`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke freely into the JSON
type Json = Record<string, any>
export function exampleAs (name: string, code: string, edit?: (t: Json) => void): Json {
  const t = JSON.parse(exampleText(name)) as Json
  t.code = code
  edit?.(t)
  return t
}

export async function newWorkspace (db: Db, name = 'templates test'): Promise<string> {
  return (await createWorkspacesRepo(db).create(name)).id
}

export interface AppendedEvent { workspaceId: string, type: string, data: Record<string, unknown> }

export function recordingOutbox (options: { fail?: boolean } = {}) {
  const events: AppendedEvent[] = []
  return {
    events,
    async append (target: Tx | Db, event: AppendedEvent): Promise<string> {
      const conn = 'afterCommit' in target ? target.conn : target
      const id = randomUUID()
      await conn.execute('INSERT INTO events (id, workspace_id, type, payload) VALUES (?, ?, ?, ?)', [id, event.workspaceId, event.type, JSON.stringify(event.data)])
      if (options.fail === true) throw new Error('outbox failed after writing')
      events.push(event)
      return id
    }
  }
}
