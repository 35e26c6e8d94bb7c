// The part of the composition root that the HTTP server and the CLI share: the database, every
// repository (built once, here) and the services over them, from the Config. The CLI reuses these
// services, never the HTTP routes; server/main.ts adds the long-lived parts of a server process.
import type { Logger } from 'pino'
import type { Config } from './config.js'
import { createDb } from './store/db.js'
import type { Db } from './store/db.js'
import { readInstanceInfo } from './store/instance.js'
import { createReloadingKeyring } from './secrets/reload.js'
import { createRepos } from './store/repos/index.js'
import { createWorkspacesService } from './services/workspaces.js'
import { createEnvironmentsService } from './services/environments.js'
import { createApiKeysService } from './services/api-keys.js'
import { createTemplatesService } from './services/templates.js'
import type { TemplatesService } from './services/templates.js'
import type { WorkspacesService } from './services/workspaces.js'
import type { EnvironmentsService } from './services/environments.js'
import type { ApiKeysService } from './services/api-keys.js'
import type { WebhooksService } from './services/webhooks.js'
import type { SecretsService } from './secrets/rotate.js'
import type { Outbox } from './webhooks/outbox.js'
import type { Repos } from './store/repos/index.js'
import type { DataSources } from './datasources/index.js'
import type { ReloadingKeyring } from './secrets/reload.js'
import { createTemplateResolver } from './render/resolver.js'
import type { RenderResolver } from './render/resolution.js'
import { createDataSources } from './datasources/index.js'
import { createDataSourceGuard } from './datasources/destinations.js'
import { createOutbox } from './webhooks/outbox.js'
import { createWebhooksService } from './services/webhooks.js'
import { generateSecret } from './webhooks/signature.js'
import { createSecretsService } from './secrets/rotate.js'

/** The service database URL: SVC_DATABASE_URL, else the private instance started by `svc db start`. */
export async function resolveDatabaseUrl (config: Config): Promise<string> {
  if (config.databaseUrl !== undefined) return config.databaseUrl
  const info = await readInstanceInfo(config.home)
  if (info === undefined) throw new Error(`no database: run "svc db start" (private MariaDB in ${config.home}) or set SVC_DATABASE_URL`)
  return info.url
}

/** The admin and read operations over the repositories (what the CLI and the routes call). */
export interface Services {
  workspaces: WorkspacesService
  environments: EnvironmentsService
  apiKeys: ApiKeysService
  templates: TemplatesService
  outbox: Outbox
  webhooks: WebhooksService
  secrets: SecretsService
}

export interface Context {
  config: Config
  db: Db
  /** The master keys (the first seals, every key opens), following the keyring file. */
  box: ReloadingKeyring
  repos: Repos
  services: Services
  /**
   * The render's hot-path read of a template version and environment (with the key's row), and
   * its caches: one per process, handed to auth/ and the render pipeline by server/main.ts.
   */
  resolver: RenderResolver
  dataSources: DataSources
  close: () => Promise<void>
}

export async function createContext (config: Config, options: {
  db?: Db
  poolSize?: number
  logger?: Logger
  onDataSourceQuery?: (ms: number, ok: boolean) => void
} = {}): Promise<Context> {
  // A caller that hands in its own pool may have no URL to tell (then there is no endpoint to refuse).
  const serviceUrl = options.db === undefined
    ? await resolveDatabaseUrl(config)
    : await resolveDatabaseUrl(config).catch(() => undefined)
  const db = options.db ?? createDb(serviceUrl as string, { connectionLimit: options.poolSize ?? 20 })
  // Data sources are checked against the operator's policy and may never reach the service database as its user.
  const guard = createDataSourceGuard(config, serviceUrl)
  // The master keys: the first seals, all open; a key added to the keyring file meanwhile is
  // read when first needed (server/secrets/reload.ts, docs/security.md).
  const box = await createReloadingKeyring(config, {
    onReload: (keyIds) => options.logger?.info({ keyIds }, 'master keys read again from the keyring file'),
    onError: (err) => options.logger?.error({ err }, 'the keyring file could not be read again; the keys in use stay')
  })
  const repos = createRepos(db)
  const events = createOutbox(repos)
  const services = {
    workspaces: createWorkspacesService(repos.workspaces),
    environments: createEnvironmentsService(repos.environments, repos.workspaces, box, guard, options.logger),
    apiKeys: createApiKeysService(repos.apiKeys, repos.workspaces),
    templates: createTemplatesService(db, repos.templates, events),
    outbox: events,
    webhooks: createWebhooksService({ db, box, config, repos, outbox: events, newSecret: generateSecret }),
    secrets: createSecretsService(db, box)
  }
  const environments = services.environments
  // Dataset failures are answered without SQL; the driver's code goes to the log for operators.
  const sources = createDataSources(config, environments, {
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
    resolver: createTemplateResolver(repos.templates),
    dataSources: sources,
    async close (): Promise<void> { await sources.close(); await db.end() }
  }
}
