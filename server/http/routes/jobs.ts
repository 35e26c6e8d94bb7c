// GET /v1/jobs/{jobId}. A malformed id is answered like an unknown one: 404 JOB_NOT_FOUND
// (no job can have it), so clients need one branch. Another workspace's job is also 404.
import type { FastifyInstance } from 'fastify'
import { problem } from '../../errors.js'
import type { JobsRepo } from '../../store/repos/jobs.js'
import type { RenderService } from '../../render/service.js'
import { jobSchema } from './job-schema.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function jobsRoute (api: FastifyInstance, deps: { jobs: JobsRepo, render: RenderService }): void {
  api.get<{ Params: { jobId: string } }>('/jobs/:jobId', {
    config: { scope: 'render' },
    schema: {
      tags: ['render'],
      summary: 'A render job; a succeeded job carries a fresh signed documentUrl',
      params: { type: 'object', properties: { jobId: { type: 'string' } } },
      response: { 200: jobSchema, '4xx': { $ref: 'problem#' } }
    }
  }, async (request, reply) => {
    const id = request.params.jobId.toLowerCase()
    const job = UUID.test(id) ? await deps.jobs.get(request.auth.workspaceId, id) : undefined
    if (job === undefined) throw problem('JOB_NOT_FOUND', 'No render job with this id in this workspace')
    // Polling clients must see state changes: never cache a job answer.
    reply.header('Cache-Control', 'no-store')
    return deps.render.jobView(job)
  })
}
