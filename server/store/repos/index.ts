// Every repository over one pool, built once by the composition root (server/context.ts) and
// handed to the services and loops that need them; nothing else builds a repository.
import type { Db } from '../db.js'
import { createWorkspacesRepo, type WorkspacesRepo } from './workspaces.js'
import { createEnvironmentsRepo, type EnvironmentsRepo } from './environments.js'
import { createApiKeysRepo, type ApiKeysRepo } from './api-keys.js'
import { createTemplatesRepo, type TemplatesRepo } from './templates.js'
import { createJobsRepo, type JobsRepo } from './jobs.js'
import { createDocumentsRepo, type DocumentsRepo } from './documents.js'
import { createDocumentUsageRepo, type DocumentUsageRepo } from './document-usage.js'
import { createRunsRepo, type RunsRepo } from './runs.js'
import { createEventsRepo, type EventsRepo } from './events.js'
import { createWebhooksRepo, type WebhooksRepo } from './webhooks.js'
import { createDeliveriesRepo, type DeliveriesRepo } from './webhooks-deliveries.js'
import { createRateLimitsRepo, type RateLimitsRepo } from './rate-limits.js'

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
    workspaces: createWorkspacesRepo(db),
    environments: createEnvironmentsRepo(db),
    apiKeys: createApiKeysRepo(db),
    templates: createTemplatesRepo(db),
    jobs: createJobsRepo(db),
    documents: createDocumentsRepo(db),
    documentUsage: createDocumentUsageRepo(db),
    runs: createRunsRepo(db),
    events: createEventsRepo(),
    webhooks: createWebhooksRepo(db),
    deliveries: createDeliveriesRepo(db),
    rateLimits: createRateLimitsRepo(db)
  }
}
