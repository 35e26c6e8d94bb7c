// When a route that defers its key check to its first query (POST /v1/render, see
// http/plugins/auth.ts) should check the key in full before reading the body instead: when the
// body announces itself as large or comes without a length (chunked). Small bodies cost little
// to read (and SVC_REQUEST_TIMEOUT bounds a slow one), so the hot path keeps one query; an
// unknown key never gets to upload a large body.
import type { FastifyRequest } from 'fastify'

export const EARLY_CHECK_BYTES = 16 * 1024

export function announcesLargeBody (request: FastifyRequest): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true
  const length = Number(request.headers['content-length'] ?? 0)
  return !(length <= EARLY_CHECK_BYTES)
}
