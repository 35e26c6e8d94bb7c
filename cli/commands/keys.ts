import { Option } from 'commander'
import type { Command } from 'commander'
import { parseExpiry, parseRateLimit, parseScopes } from '../../server/services/api-keys.js'
import type { KeyMode } from '../../server/util/api-key-format.js'
import { emit, table } from '../io.js'
import type { CliRuntime } from '../runtime.js'

export function keyCommands (program: Command, rt: CliRuntime): void {
  const keys = program.command('keys').description('workspace API keys (the full key is shown once, at creation)')
  keys
    .command('create')
    .description('create an API key and print it once')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'human label')
    .addOption(new Option('--mode <mode>', 'live or test').choices(['live', 'test']).makeOptionMandatory())
    .requiredOption('--scopes <list>', 'comma-separated: render,templates.read,templates.write,datasets.execute')
    .option('--expires <when>', 'never, 30d, 90d, 365d or YYYY-MM-DD', 'never')
    .option('--rate-limit <n>', 'requests per minute across all nodes, or default (SVC_RATE_LIMIT)', 'default')
    .action(
      async (opts: {
        workspace: string
        name: string
        mode: KeyMode
        scopes: string
        expires: string
        rateLimit: string
      }) => {
        const scopes = parseScopes(opts.scopes)
        const expiresAt = parseExpiry(opts.expires)
        const rateLimit = parseRateLimit(opts.rateLimit)
        const created = await rt.withContext((ctx) =>
          ctx.services.apiKeys.create({
            workspaceId: opts.workspace,
            name: opts.name,
            mode: opts.mode,
            scopes,
            expiresAt,
            rateLimit
          })
        )
        emit(rt.io(), created, (v) => [
          v.key,
          `(${v.prefix}, ${v.mode}, scopes ${v.scopes.join(',')}, expires ${v.expiresAt ?? 'never'}, rate limit ${v.rateLimit ?? 'default'}/min) — store it now: it is not shown again`
        ])
      }
    )
  keys.command('list').description('list keys with their state and last use')
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const list = await rt.withContext(async (ctx) => {
        await ctx.services.workspaces.get(opts.workspace)
        return await ctx.services.apiKeys.list(opts.workspace)
      })
      emit(rt.io(), list, (v) => table(v.map((k) => ({ ...k, rateLimit: k.rateLimit ?? 'default' })),
        ['prefix', 'name', 'mode', 'scopes', 'state', 'rateLimit', 'expiresAt', 'lastUsedAt']))
    })
  keys.command('revoke').description('revoke a key (by id or prefix); effective on the next request')
    .argument('<key>', 'key id or prefix (svc_live_…)')
    .requiredOption('--workspace <id>', 'workspace the key belongs to')
    .action(async (key: string, opts: { workspace: string }) => {
      const revoked = await rt.withContext((ctx) => ctx.services.apiKeys.revoke(opts.workspace, key))
      emit(rt.io(), revoked, (v) => `${v.prefix} revoked`)
    })
  keys.command('set-rate-limit').description('set a key\'s requests per minute across all nodes; effective within 3 s')
    .argument('<key>', 'key id or prefix (svc_live_…)')
    .argument('<n>', 'requests per minute, or default (SVC_RATE_LIMIT)')
    .action(async (key: string, n: string) => {
      const rateLimit = parseRateLimit(n)
      const updated = await rt.withContext((ctx) => ctx.services.apiKeys.setRateLimit(key, rateLimit))
      emit(rt.io(), updated, (v) => `${v.prefix} rate limit ${v.rateLimit ?? 'default'}/min`)
    })
}
