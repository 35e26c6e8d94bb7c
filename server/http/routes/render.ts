// POST /v1/render (spec Part 4): sync answers the document with its headers; async answers
// 202 with the job and Location = statusUrl. A big document comes as it renders (chunked,
// no Content-Length; see render/sync.ts and docs/api.md).
import type { FastifyInstance } from 'fastify'
import type { SchemaTypes } from '../types.js'
import type { RenderPipeline } from '../../render/pipeline.js'
import type { SyncRenders } from '../../render/sync.js'
import type { JobsService } from '../../jobs/service.js'
import { jobSchema } from './job-schema.js'
import { Problem } from '../../errors.js'

export const renderBodySchema = {
  type: 'object',
  required: ['template'],
  additionalProperties: false,
  properties: {
    template: { type: 'string', minLength: 1, maxLength: 64 },
    version: { type: 'integer', minimum: 1, maximum: 2147483647 }, // INT column
    environment: { type: 'string', minLength: 1, maxLength: 64 },
    // additionalProperties spelled out (JSON Schema's default): generated clients then type it
    // as a map of values, not as an empty object.
    parameters: { type: 'object', additionalProperties: true },
    format: { type: 'string', enum: ['pdf', 'zpl'] },
    async: { type: 'boolean' },
    fileName: { type: 'string', minLength: 1, maxLength: 255, format: 'file-name' }, // validation/file-name.ts
    context: { type: 'object', additionalProperties: true }
  }
} as const

/** Content-Disposition with an ASCII fallback and RFC 5987 UTF-8 name when needed. */
export function contentDisposition (fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return ascii === fileName
    ? `attachment; filename="${ascii}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName.toWellFormed())}`
}

export function renderRoute (
  api: FastifyInstance,
  deps: { pipeline: RenderPipeline, sync: SyncRenders, jobs: JobsService }
): void {
  // The request's type is derived from renderBodySchema (the type provider): one source of truth.
  api.withTypeProvider<SchemaTypes>().post(
    '/render',
    {
      config: { scope: 'render', deferAuth: true },
      schema: {
        operationId: 'render',
        tags: ['render'],
        summary: 'Render a published template',
        description: 'Renders the published version of a template with data read from an environment\'s data ' +
          'source. By default the answer is the document itself (PDF for document templates, ZPL for labels) ' +
          'with its facts in headers; with `"async": true` the answer is 202 and a render job to poll (or to ' +
          'follow through the document.generated and document.failed webhooks). Every check (template, ' +
          'environment, format, parameters) runs before any data-source query.',
        body: renderBodySchema,
        response: {
          200: { description: 'The document (application/pdf or application/zpl)', type: 'string', format: 'binary' },
          202: { ...jobSchema, description: 'Accepted: the queued render job; Location holds its statusUrl' },
          '4xx': { $ref: 'problem#' },
          '5xx': { $ref: 'problem#' }
        }
      }
    },
    async (request, reply) => {
      const started = Date.now()
      // Deferred auth (see plugins/auth.ts): the key's row comes with template and environment.
      const { auth, found } = await request.authenticateForRender(reply, request.body)
      let prepared
      try {
        prepared = await deps.pipeline.check(auth, request.body, found)
      } catch (err) {
        if (err instanceof Problem) deps.sync.recordRejected(auth, request.body, err, request.id, started)
        throw err
      }
      if (request.body.async === true) {
        const job = await deps.jobs.enqueue(prepared, request.id)
        return await reply.code(202).header('Location', job.statusUrl).send(job)
      }
      const result = await deps.sync.render(prepared, request.id)
      reply.code(200).header('Content-Type', result.contentType)
      if (Buffer.isBuffer(result.body)) reply.header('Content-Length', result.body.length)
      reply
        .header('Content-Disposition', contentDisposition(prepared.fileName))
        .header('X-Template-Version', prepared.resolved.version)
        .header('X-Document-Format', prepared.format)
        .header('X-Environment', prepared.env.key)
        .header('X-Run-ID', result.runId)
      if (prepared.format === 'pdf') reply.header('X-Page-Count', result.pageCount)
      else reply.header('X-Label-Count', result.labelCount)
      return await reply.send(result.body)
    }
  )
}
