// Every /api/v1 route, registered in one place. Each resource has its own file; each route
// parses, calls one module and answers.
import type { FastifyInstance } from 'fastify'
import { whoamiRoute } from './whoami.js'
import { renderRoute } from './render.js'
import { jobsRoute } from './jobs.js'
import { documentsRoute } from './documents.js'
import type { TemplatesService } from '../../services/templates.js'
import type { RenderPipeline } from '../../render/pipeline.js'
import type { SyncRenders } from '../../render/sync.js'
import type { JobsService } from '../../jobs/service.js'
import type { DocumentsRepo } from '../../store/repos/documents.js'
import type { DocumentLinks } from '../../documents/links.js'
import { templatesRoutes } from './templates.js'
import { datasetsRoute } from './datasets.js'

export interface ApiDeps {
  templates: TemplatesService
  pipeline: RenderPipeline
  sync: SyncRenders
  jobs: JobsService
  documents: DocumentsRepo
  links: DocumentLinks
}

export async function apiRoutes (api: FastifyInstance, deps: ApiDeps): Promise<void> {
  whoamiRoute(api)
  renderRoute(api, deps)
  jobsRoute(api, deps)
  documentsRoute(api, deps)
  templatesRoutes(api, deps)
  datasetsRoute(api, deps)
}
