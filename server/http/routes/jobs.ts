// GET /v1/jobs/{jobId}. A malformed id is answered like an unknown one: 404 JOB_NOT_FOUND
// (no job can have it), so clients need one branch. Another workspace's job is also 404.
import type { FastifyInstance } from 'fastify'
import type { SchemaTypes } from '../types.js'
import type { JobsService } from '../../jobs/service.js'
import { jobSchema } from './job-schema.js'

export function jobsRoute (api: FastifyInstance, deps: { jobs: JobsService }): void {
  api.withTypeProvider<SchemaTypes>().get('/jobs/:jobId', {
    config: { scope: 'render' },
    schema: {
      operationId: 'getJob',
      tags: ['render'],
      summary: 'Read a render job',
      description: 'The state of an asynchronous render. Poll every second or two at first, then less often, ' +
        'until the status is succeeded or failed. Every read of a succeeded job carries a fresh signed ' +
        'documentUrl; a failed job carries error.code and error.message.',
      params: { type: 'object', required: ['jobId'], properties: { jobId: { type: 'string' } } },
      response: { 200: { ...jobSchema, description: 'The render job' }, '4xx': { $ref: 'problem#' } }
    }
  }, async (request, reply) => {
    const job = await deps.jobs.find(request.auth.workspaceId, request.params.jobId)
    // Polling clients must see state changes: never cache a job answer.
    reply.header('Cache-Control', 'no-store')
    return job
  })
}
