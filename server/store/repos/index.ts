// Every repository over one pool, built once by the composition root (server/context.ts) and
// handed to the services and loops that need them; nothing else builds a repository.
import type { Db } from '../db.js'
import { workspacesRepo } from './workspaces.js'
import { environmentsRepo } from './environments.js'
import { apiKeysRepo } from './api-keys.js'
import { templatesRepo } from './templates.js'
import { jobsRepo } from './jobs.js'
import { documentsRepo } from './documents.js'
import { documentUsageRepo } from './document-usage.js'
import { runsRepo } from './runs.js'
import { eventsRepo } from './events.js'
import { webhooksRepo } from './webhooks.js'
import { deliveriesRepo } from './webhooks-deliveries.js'
import { rateLimitsRepo } from './rate-limits.js'

export function createRepos (db: Db) {
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
export type Repos = ReturnType<typeof createRepos>
