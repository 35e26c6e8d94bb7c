// The part of the composition root that the HTTP server and the CLI share: the database, every
// repository (built once, here) and the services over them, from the Config. The CLI reuses these
// services, never the HTTP routes; server/main.ts adds the long-lived parts of a server process.
import type { Logger } from 'pino'
import type { Config } from './config.js'
import { createDb } from './store/db.js'
import type { Db } from './store/db.js'
import { readInstanceInfo } from './store/instance.js'
import { reloadingKeyring } from './secrets/reload.js'
import { createRepos } from './store/repos/index.js'
import { workspacesService } from './services/workspaces.js'
import { environmentsService } from './services/environments.js'
import { apiKeysService } from './services/api-keys.js'
import { templatesService } from './services/templates.js'
import { dataSources } from './datasources/index.js'
import { dataSourceGuard } from './datasources/destinations.js'
import { outbox } from './webhooks/outbox.js'
import { webhooksService } from './services/webhooks.js'
import { secretsService } from './secrets/rotate.js'

/** The service database URL: SVC_DATABASE_URL, else the private instance started by `svc db start`. */
export async function resolveDatabaseUrl (config: Config): Promise<string> {
  if (config.databaseUrl !== undefined) return config.databaseUrl
  const info = await readInstanceInfo(config.home)
  if (info === undefined) throw new Error(`no database: run "svc db start" (private MariaDB in ${config.home}) or set SVC_DATABASE_URL`)
  return info.url
}

export async function createContext (config: Config, options: {
  db?: Db
  poolSize?: number
  logger?: Logger
  onDataSourceQuery?: (ms: number, ok: boolean) => void
} = {}) {
  // A caller that hands in its own pool may have no URL to tell (then there is no endpoint to refuse).
  const serviceUrl = options.db === undefined
    ? await resolveDatabaseUrl(config)
    : await resolveDatabaseUrl(config).catch(() => undefined)
  const db = options.db ?? createDb(serviceUrl as string, { connectionLimit: options.poolSize ?? 20 })
  // Data sources are checked against the operator's policy and may never reach the service database as its user.
  const guard = dataSourceGuard(config, serviceUrl)
  // The master keys: the first seals, all open; a key added to the keyring file meanwhile is
  // read when first needed (server/secrets/reload.ts, docs/security.md).
  const box = await reloadingKeyring(config, {
    onReload: (keyIds) => options.logger?.info({ keyIds }, 'master keys read again from the keyring file'),
    onError: (err) => options.logger?.error({ err }, 'the keyring file could not be read again; the keys in use stay')
  })
  const repos = createRepos(db)
  const events = outbox(repos)
  const services = {
    workspaces: workspacesService(repos.workspaces),
    environments: environmentsService(repos.environments, repos.workspaces, box, guard, options.logger),
    apiKeys: apiKeysService(repos.apiKeys, repos.workspaces),
    templates: templatesService(db, repos.templates, events),
    outbox: events,
    webhooks: webhooksService({ db, box, config, repos, outbox: events }),
    secrets: secretsService(db, box)
  }
  const environments = services.environments
  // Dataset failures are answered without SQL; the driver's code goes to the log for operators.
  const sources = dataSources(config, environments, {
    guard,
    onError: (failure) => options.logger?.warn(failure, 'dataset failed'),
    onQuery: options.onDataSourceQuery
  })
  return {
    config,
    db,
    box,
    repos,
    services,
    dataSources: sources,
    async close (): Promise<void> { await sources.close(); await db.end() }
  }
}
export type Context = Awaited<ReturnType<typeof createContext>>
