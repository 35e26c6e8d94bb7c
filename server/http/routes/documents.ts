// GET /v1/documents/{token}: no API key; the signed token is the credential. Invalid, expired
// or deleted → 404 DOCUMENT_NOT_FOUND (one answer, so a token reveals nothing). The bytes are
// streamed chunk by chunk from the database (store/repos/documents.ts), never held whole.
import type { FastifyInstance } from 'fastify'
import type { SchemaTypes } from '../types.js'
import { problem } from '../../errors.js'
import type { DocumentLinks } from '../../documents/links.js'
import type { DocumentsRepo } from '../../store/repos/documents.js'
import { contentDisposition } from './render.js'

export function documentsRoute (api: FastifyInstance, deps: { links: DocumentLinks, documents: DocumentsRepo }): void {
  api.withTypeProvider<SchemaTypes>().get('/documents/:token', {
    schema: {
      operationId: 'downloadDocument',
      tags: ['documents'],
      summary: 'Download a stored document',
      description: 'The document of a succeeded job, through the signed short-lived link of its documentUrl. ' +
        'No API key: the token is the credential. An invalid or expired link, or a deleted document, is ' +
        '404 DOCUMENT_NOT_FOUND: read the job again for a fresh link.',
      security: [],
      params: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
      response: {
        200: { description: 'The stored document', type: 'string', format: 'binary' },
        '4xx': { $ref: 'problem#' }
      }
    }
  }, async (request, reply) => {
    const id = deps.links.verify(request.params.token)
    const doc = id === undefined ? undefined : await deps.documents.open(id)
    if (doc === undefined) {
      throw problem('DOCUMENT_NOT_FOUND', 'The link is invalid or expired, ' +
      'or the document was deleted; read the job again for a fresh link')
    }
    return await reply
      .header('Content-Type', doc.contentType)
      .header('Content-Length', doc.bytes)
      .header('Content-Disposition', contentDisposition(doc.fileName))
      .header('Cache-Control', 'private, no-store')
      .send(doc.stream)
  })
}
