import type { Command } from 'commander'
import { emit, table } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function workspaceCommands (program: Command, rt: CliRuntime): void {
  const ws = program.command('workspaces').description('workspaces: the tenants that own templates, environments, ' +
    'keys and webhooks')
  ws.command('create').description('create a workspace and print its id')
    .requiredOption('--name <name>', 'display name')
    .action(async (opts: { name: string }) => {
      const created = await rt.withContext((ctx) => ctx.services.workspaces.create(opts.name))
      emit(rt.io(), created, (v) => v.id)
    })
  ws.command('list').description('list workspaces')
    .action(async () => {
      const list = await rt.withContext((ctx) => ctx.services.workspaces.list())
      emit(rt.io(), list, (v) => table(v, ['id', 'name', 'createdAt']))
    })
}
