// Every repository over one pool, built once by the composition root (server/context.ts) and
// handed to the services and loops that need them; nothing else builds a repository.
import type { Db } from '../db.js'
import { workspacesRepo, type WorkspacesRepo } from './workspaces.js'
import { environmentsRepo, type EnvironmentsRepo } from './environments.js'
import { apiKeysRepo, type ApiKeysRepo } from './api-keys.js'
import { templatesRepo, type TemplatesRepo } from './templates.js'
import { jobsRepo, type JobsRepo } from './jobs.js'
import { documentsRepo, type DocumentsRepo } from './documents.js'
import { documentUsageRepo, type DocumentUsageRepo } from './document-usage.js'
import { runsRepo, type RunsRepo } from './runs.js'
import { eventsRepo, type EventsRepo } from './events.js'
import { webhooksRepo, type WebhooksRepo } from './webhooks.js'
import { deliveriesRepo, type DeliveriesRepo } from './webhooks-deliveries.js'
import { rateLimitsRepo, type RateLimitsRepo } from './rate-limits.js'

export interface Repos {
  workspaces: WorkspacesRepo
  environments: EnvironmentsRepo
  apiKeys: ApiKeysRepo
  templates: TemplatesRepo
  jobs: JobsRepo
  documents: DocumentsRepo
  /** Stored document bytes per workspace (the storage quota). */
  documentUsage: DocumentUsageRepo
  runs: RunsRepo
  events: EventsRepo
  webhooks: WebhooksRepo
  deliveries: DeliveriesRepo
  rateLimits: RateLimitsRepo
}

export function createRepos (db: Db): Repos {
  return {
    workspaces: workspacesRepo(db),
    environments: environmentsRepo(db),
    apiKeys: apiKeysRepo(db),
    templates: templatesRepo(db),
    jobs: jobsRepo(db),
    documents: documentsRepo(db),
    documentUsage: documentUsageRepo(db),
    runs: runsRepo(db),
    events: eventsRepo(),
    webhooks: webhooksRepo(db),
    deliveries: deliveriesRepo(db),
    rateLimits: rateLimitsRepo(db)
  }
}
