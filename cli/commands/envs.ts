import type { Command } from 'commander'
import { emit, table } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function envCommands (program: Command, rt: CliRuntime): void {
  const envs = program.command('envs').description('environments of a workspace and their MySQL data sources')
  envs.command('create').description('create an environment (password stored encrypted with the master key)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--key <key>', 'environment key, e.g. development, staging, production')
    .option('--datasource <url>', 'mysql://user:password@host:port/database')
    .option('--production', 'mark as a production environment (default for the key "production"); ' +
      'test keys may not use it')
    .option('--no-production', 'do not mark as production')
    .action(async (opts: { workspace: string, key: string, datasource?: string, production?: boolean }) => {
      const created = await rt.withContext((ctx) =>
        ctx.services.environments.create({
          workspaceId: opts.workspace,
          key: opts.key,
          dataSourceUrl: opts.datasource,
          production: opts.production
        })
      )
      emit(rt.io(), created, (v) => `${v.key} (${v.id})${v.production ? ' production' : ''}`)
    })
  envs.command('set-datasource').description('replace (or with --none remove) the data source of an environment')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--key <key>', 'environment key')
    .option('--datasource <url>', 'mysql://user:password@host:port/database')
    .action(async (opts: { workspace: string, key: string, datasource?: string }) => {
      const env = await rt.withContext((ctx) =>
        ctx.services.environments.setDataSource(opts.workspace, opts.key, opts.datasource ?? null)
      )
      emit(rt.io(), env, (v) => `${v.key}: ${v.dataSource === null ? 'no data source' : `${v.dataSource.user}@${v.dataSource.host}:${v.dataSource.port}/${v.dataSource.database}`}`)
    })
  envs.command('set-label-dpi').description('default printer resolution of labels rendered in an environment (152, 203, 300, 600; "none": each template\'s own)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--key <key>', 'environment key')
    .argument('<dpi>', '152, 203, 300, 600 or none')
    .action(async (dpi: string, opts: { workspace: string, key: string }) => {
      const env = await rt.withContext((ctx) =>
        ctx.services.environments.setLabelDpi(opts.workspace, opts.key, dpi === 'none' ? null : Number(dpi))
      )
      emit(rt.io(), env, (v) => `${v.key}: labels at ${v.labelDpi === null ? "each template's own resolution" : `${v.labelDpi} dpi`}`)
    })
  envs.command('list').description('list environments (passwords are never shown)')
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const list = await rt.withContext((ctx) => ctx.services.environments.list(opts.workspace))
      emit(rt.io(), list, (v) => table(v.map((e) => ({ ...e, dataSource: e.dataSource === null ? null : `${e.dataSource.user}@${e.dataSource.host}:${e.dataSource.port}/${e.dataSource.database}` })), ['key', 'production', 'dataSource', 'labelDpi', 'id']))
    })
}
