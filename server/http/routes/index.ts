// Every /api/v1 route, registered in one place. Each resource has its own file.
import type { FastifyInstance } from 'fastify'
import type { Context } from '../../context.js'
import { whoamiRoute } from './whoami.js'
import { renderRoute } from './render.js'
import { jobsRoute } from './jobs.js'
import { documentsRoute } from './documents.js'
import type { RenderService } from '../../render/service.js'
import type { JobsRepo } from '../../store/repos/jobs.js'
import type { DocumentsRepo } from '../../store/repos/documents.js'
import type { DocumentLinks } from '../../documents/links.js'
import { templatesRoutes } from './templates.js'
import { datasetsRoute } from './datasets.js'

export interface ApiDeps {
  context: Context
  /** The render API; present in a server process (services/runtime.ts). */
  render?: { service: RenderService, jobs: JobsRepo, documents: DocumentsRepo, links: DocumentLinks }
}

export async function apiRoutes (api: FastifyInstance, deps: ApiDeps): Promise<void> {
  whoamiRoute(api, deps)
  if (deps.render !== undefined) {
    renderRoute(api, { render: deps.render.service })
    jobsRoute(api, { jobs: deps.render.jobs, render: deps.render.service })
    documentsRoute(api, deps.render)
  }
  templatesRoutes(api, deps)
  datasetsRoute(api, deps)
}
