// Workspaces, environments and keys made through the same services the CLI uses.
import type { Context } from '../../server/context.js'
import type { KeyMode, Scope } from '../../server/util/api-key-format.js'

export async function workspaceWithKey (
  ctx: Context,
  options: { mode?: KeyMode, scopes?: Scope[], expiresAt?: Date | null, name?: string } = {}
) {
  const workspace = await ctx.services.workspaces.create(options.name ?? 'Test workspace')
  const key = await ctx.services.apiKeys.create({
    workspaceId: workspace.id,
    name: 'test key',
    mode: options.mode ?? 'live',
    scopes: options.scopes ?? ['render', 'templates.read', 'datasets.execute'],
    expiresAt: options.expiresAt ?? null
  })
  return { workspace, key }
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` })
