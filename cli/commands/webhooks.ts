// `svc webhooks …`: endpoints, secrets, test events, the delivery log and redelivery (spec Part 6).
// Every command calls the webhooks service, the same functions an HTTP route would use.
import type { Command } from 'commander'
// Definitions only: what an action needs is loaded when it runs (svc --help starts fast).
import { DELIVERY_STATUSES } from '../../server/store/repos/webhooks-deliveries.js'
import type { DeliveryView, EndpointView } from '../../server/services/webhooks.js'
import type { DeliveryStatus } from '../../server/store/repos/webhooks-deliveries.js'
import { emit, table, UsageError } from '../io.js'
import type { CliRuntime } from '../runtime.js'
import { listenCommand } from './webhooks-listen.js'

const endpointLines = (e: EndpointView): string[] => [
  `${e.id}  ${e.enabled ? 'enabled' : 'disabled'}`,
  `  url          ${e.url}`,
  `  events       ${e.events.join(',')}`,
  `  description  ${e.description === '' ? '-' : e.description}`,
  `  workspace    ${e.workspaceId}`,
  `  created      ${e.createdAt}`
]

const deliveryRow = (d: DeliveryView) => ({
  id: d.id,
  eventId: d.eventId,
  type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  http: d.lastHttpStatus,
  nextAttempt: d.nextAttemptAt,
  excerpt: (d.lastResponseExcerpt ?? d.lastError ?? '').replace(/\s+/g, ' ').slice(0, 60)
})

export function webhookCommands (program: Command, rt: CliRuntime): void {
  const wh = program.command('webhooks').description('webhook endpoints: signed HTTPS event deliveries ' +
    '(secrets are shown once)')

  wh.command('create').description('register an https:// endpoint; prints its id and signing secret once')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--url <url>', 'https:// URL on a public host')
    .requiredOption('--events <list>', 'comma-separated: document.generated,document.failed,template.published')
    .option('--description <text>', 'what the endpoint is for')
    .action(async (opts: { workspace: string, url: string, events: string, description?: string }) => {
      const created = await rt.withContext((ctx) => ctx.services.webhooks.create({ workspaceId: opts.workspace, url: opts.url, events: opts.events.split(','), description: opts.description }))
      emit(rt.io(), created, (v) => [`${v.id}`, v.secret, `(${v.url}, events ${v.events.join(',')}) — store the ` +
        'secret now: it is not shown again'])
    })

  wh.command('list').description('endpoints of a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const list = await rt.withContext(async (ctx) => {
        await ctx.services.workspaces.get(opts.workspace)
        return await ctx.services.webhooks.list(opts.workspace)
      })
      emit(rt.io(), list, (v) => table(v, ['id', 'url', 'events', 'enabled', 'description']))
    })

  wh.command('show').description('one endpoint').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.show(opts.workspace, id)), endpointLines)
    })

  wh.command('disable').description('stop deliveries; open ones wait until the endpoint is enabled ' +
    'again').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.disable(opts.workspace, id)), (v) => `${v.id} disabled`)
    })

  wh.command('enable').description('resume deliveries (open ones are sent at once)').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.enable(opts.workspace, id)), (v) => `${v.id} enabled (${v.resumedDeliveries} waiting deliveries resumed)`)
    })

  wh.command('delete').description('delete an endpoint with its delivery log').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.delete(opts.workspace, id)), (v) => `${v.id} deleted`)
    })

  wh.command('rotate-secret').description('new signing secret, printed once; the old one stops signing at ' +
    'once').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.rotateSecret(opts.workspace, id)), (v) => [v.secret, '(the previous secret no longer signs; store this one now: it is not shown again)'])
    })

  wh.command('test').description('send a webhook.test event (delivered whatever the ' +
    'subscriptions)').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.test(opts.workspace, id)), (v) => `webhook.test event ${v.eventId} queued as delivery ${v.deliveryId}`)
    })

  wh.command('deliveries').description('delivery log of an endpoint, newest first').argument('<id>', 'endpoint id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .option('--status <status>', DELIVERY_STATUSES.join(', '))
    .option('--limit <n>', 'at most this many (1-1000)', '50')
    .action(async (id: string, opts: { workspace: string, status?: string, limit: string }) => {
      if (!/^\d+$/.test(opts.limit)) throw new UsageError('--limit: expected a whole number')
      const list = await rt.withContext((ctx) =>
        ctx.services.webhooks.deliveries(opts.workspace, id, {
          status: opts.status as DeliveryStatus | undefined,
          limit: Number(opts.limit)
        })
      )
      emit(rt.io(), list, (v) => table(v.map(deliveryRow), ['id', 'eventId', 'type', 'status', 'attempts', 'http', 'nextAttempt', 'excerpt']))
    })

  wh.command('delivery').description('one delivery with every attempt').argument('<id>', 'delivery id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.delivery(opts.workspace, id)), (v) => [
        `${v.id}  ${v.status}  event ${v.eventId} (${v.eventType})  next ${v.nextAttemptAt ?? '-'}`,
        ...table(v.attemptLog.map((a) => ({ ...a, excerpt: (a.excerpt ?? '').replace(/\s+/g, ' ').slice(0, 60) })), ['attempt', 'startedAt', 'durationMs', 'httpStatus', 'error', 'excerpt'])
      ])
    })

  wh.command('redeliver').description('send an event again: a new delivery with the same event ' +
    'id').argument('<deliveryId>', 'delivery id')
    .requiredOption('--workspace <id>', 'workspace the endpoint or delivery belongs to')
    .action(async (id: string, opts: { workspace: string }) => {
      emit(rt.io(), await rt.withContext((ctx) => ctx.services.webhooks.redeliver(opts.workspace, id)), (v) => `event ${v.eventId} queued again as delivery ${v.id}`)
    })

  listenCommand(wh, rt)
}
