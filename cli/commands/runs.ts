import { Option } from 'commander'
import type { Command } from 'commander'
import { UsageError, emit, table } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function runCommands (program: Command, rt: CliRuntime): void {
  const runs = program.command('runs').description('run history: every render, sync or async, success or failure')
  runs.command('list').description('recent runs of a workspace, newest first')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--limit <n>', 'how many (1-1000)', '50')
    .option('--key <prefix>', 'only runs of this key prefix (svc_live_…)')
    .addOption(new Option('--status <status>', 'only succeeded or failed runs').choices(['succeeded', 'failed']))
    .action(async (opts: { workspace: string, limit: string, key?: string, status?: 'succeeded' | 'failed' }) => {
      const limit = Number(opts.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new UsageError('--limit: expected a whole number from 1 to 1000')
      }
      const list = await rt.withContext(async (ctx) => {
        await ctx.services.workspaces.get(opts.workspace)
        return await ctx.repos.runs.list(opts.workspace, { limit, keyPrefix: opts.key, status: opts.status })
      })
      const view = list.map((r) => ({
        ...r,
        startedAt: r.startedAt.toISOString(),
        completedAt: r.completedAt.toISOString()
      }))
      const columns = ['id', 'startedAt', 'mode', 'templateCode', 'version', 'environment', 'status', 'errorCode',
        'durationMs', 'pageCount', 'outputBytes', 'warningCount', 'apiKeyPrefix'] as const
      emit(rt.io(), view, (v) => table(v, [...columns]))
    })
}
