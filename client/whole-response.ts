// One HTTP exchange read to its end into one Buffer, through undici's dispatch API. What the
// client's JSON calls, a sync render's document and `svc bench` need: undici's request() wraps
// every answer in a Readable stream and hands its chunks through a stream and an async read,
// which cost the caller ~0.1 ms CPU per request against the render API (0.51 → 0.41 ms, docs/client.md).
// A download that must not be held in memory keeps request() and its stream.
import type { Dispatcher } from 'undici'

export interface WholeResponse {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0]

/** Sends `options` on `dispatcher` and resolves with the whole answer; rejects with undici's
 *  error (network failure, timeout) or with `signal.reason` once the signal aborts. */
export async function wholeResponse (
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: AbortSignal
): Promise<WholeResponse> {
  return await new Promise<WholeResponse>((resolve, reject) => {
    let controller: Controller | undefined
    let statusCode = 0
    let headers: WholeResponse['headers'] = {}
    const chunks: Buffer[] = []
    let length = 0
    let settled = false
    const reason = (): Error => signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError')
    const settle = (err: Error | undefined, res?: WholeResponse): void => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      if (res === undefined) reject(err ?? new Error('the request ended without an answer'))
      else resolve(res)
    }
    // A request still waiting for a connection has no controller yet: it is rejected now and
    // aborts itself when undici starts it (onRequestStart).
    function onAbort (): void {
      controller?.abort(reason())
      settle(reason())
    }
    if (signal?.aborted === true) { settle(reason()); return }
    signal?.addEventListener('abort', onAbort, { once: true })
    dispatcher.dispatch(options, {
      onRequestStart (c) {
        controller = c
        if (settled) c.abort(reason())
      },
      // Called again after a 1xx: the last call is the final answer.
      onResponseStart (_c, status, h) {
        statusCode = status
        headers = h
      },
      onResponseData (_c, chunk) {
        chunks.push(chunk)
        length += chunk.length
      },
      onResponseEnd () {
        const body = chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, length)
        settle(undefined, { statusCode, headers, body })
      },
      onResponseError (_c, err) { settle(err) }
    })
  })
}

/** One value of a header (the first, when it was sent more than once). */
export function headerValue (headers: WholeResponse['headers'], name: string): string | undefined {
  const v = headers[name]
  return Array.isArray(v) ? v[0] : v
}
