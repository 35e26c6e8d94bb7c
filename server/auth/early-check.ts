// When a route that defers its key check to its first query (POST /v1/render, see
// auth/authenticate.ts beforeBody) should check the key in full before reading the body instead:
// when the body announces itself as large or comes without a length (chunked). Small bodies cost
// little to read (and SVC_REQUEST_TIMEOUT bounds a slow one), so the hot path keeps one query; an
// unknown key never gets to upload a large body, and a key refused before (remembered by
// failure-throttle.ts) is refused at this point whatever its body's size, without a query.
export const EARLY_CHECK_BYTES = 16 * 1024

export interface BodyHeaders { 'content-length'?: string, 'transfer-encoding'?: string }

export function announcesLargeBody (headers: BodyHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true
  const length = Number(headers['content-length'] ?? 0)
  return !(length <= EARLY_CHECK_BYTES)
}
