import { problem } from '../errors.js'
import type { WorkspacesRepo } from '../store/repos/workspaces.js'

export interface WorkspaceView { id: string, name: string, createdAt: string }

export interface WorkspacesService {
  create(name: string): Promise<WorkspaceView>
  list(): Promise<WorkspaceView[]>
  get(id: string): Promise<WorkspaceView>
}

export function createWorkspacesService (repo: WorkspacesRepo): WorkspacesService {
  const view = (w: { id: string, name: string, createdAt: Date }): WorkspaceView => ({
    id: w.id,
    name: w.name,
    createdAt: w.createdAt.toISOString()
  })
  return {
    async create (name: string): Promise<WorkspaceView> {
      const trimmed = name.trim()
      if (trimmed.length === 0 || trimmed.length > 200) {
        throw problem('VALIDATION_FAILED', 'name: 1 to 200 characters', { errors: { name: ['1 to 200 characters'] } })
      }
      return view(await repo.create(trimmed))
    },
    async list (): Promise<WorkspaceView[]> { return (await repo.list()).map(view) },
    async get (id: string): Promise<WorkspaceView> {
      const w = /^[0-9a-f-]{36}$/.test(id) ? await repo.get(id) : undefined
      if (w === undefined) throw problem('WORKSPACE_NOT_FOUND', `no workspace ${id}`)
      return view(w)
    }
  }
}
