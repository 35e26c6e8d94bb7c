// What the render pipeline, sync renders and the jobs module need, built once per process by
// server/main.ts (each takes the part it uses).
import type { Config } from '../config.js'
import type { Db } from '../store/db.js'
import type { RenderPool } from '../../pool/render-pool.js'
import type { TemplatesService } from '../services/templates.js'
import type { EnvironmentsRepo } from '../store/repos/environments.js'
import type { DataSources } from '../datasources/index.js'
import type { JobsRepo } from '../store/repos/jobs.js'
import type { DocumentsRepo } from '../store/repos/documents.js'
import type { DocumentUsageRepo } from '../store/repos/document-usage.js'
import type { RunsRepo } from '../store/repos/runs.js'
import type { RunRecorder } from './run-recorder.js'
import type { Outbox } from '../webhooks/outbox.js'
import type { DocumentLinks } from '../documents/links.js'

export interface RenderDeps {
  config: Config
  db: Db
  pool: RenderPool
  templates: TemplatesService
  environments: EnvironmentsRepo
  dataSources: DataSources
  jobs: JobsRepo
  documents: DocumentsRepo
  /** Stored document bytes per workspace (the storage quota). */
  documentUsage: DocumentUsageRepo
  runs: RunsRepo
  recorder: RunRecorder
  outbox: Outbox
  links: DocumentLinks
  /** Absolute base URL of this service (https://host:port), for statusUrl and documentUrl. */
  baseUrl: () => string
}
