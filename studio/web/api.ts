// The page's one door to the studio's local API. URLs are relative: the page is served at
// /TOKEN/, so `api/…` carries the token without the code ever handling it.
import type {
  PublishRequest, PublishResponse, RenderRequest, RenderResponse, SaveRequest, SaveResponse, StudioErrorBody,
  StudioSession, ValidateRequest, ValidateResponse
} from '../contract.js'

/** A non-2xx answer: the problem document's title and detail, kept whole for the error pane. */
export class ApiError extends Error {
  constructor (readonly status: number, readonly problem: Partial<StudioErrorBody>) {
    super([problem.errorCode, problem.title, problem.detail].filter((s) => s !== undefined && s !== '').join(': ') ||
      `HTTP ${status}`)
  }
}

async function call<T> (path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = body === undefined
    ? { signal }
    : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal }
  const res = await fetch(`api/${path}`, init)
  const text = await res.text()
  // A problem is JSON too; anything else (a proxy's HTML page) becomes a problem with its status.
  let json: unknown
  try { json = JSON.parse(text) } catch { json = { title: text.slice(0, 200) } }
  if (!res.ok) throw new ApiError(res.status, json as Partial<StudioErrorBody>)
  return json as T
}

export const api = {
  session: async (): Promise<StudioSession> => await call<StudioSession>('session', undefined),
  validate: async (req: ValidateRequest, signal?: AbortSignal): Promise<ValidateResponse> =>
    await call<ValidateResponse>('validate', req, signal),
  render: async (req: RenderRequest, signal?: AbortSignal): Promise<RenderResponse> =>
    await call<RenderResponse>('render', req, signal),
  save: async (req: SaveRequest): Promise<SaveResponse> => await call<SaveResponse>('save', req),
  publish: async (req: PublishRequest): Promise<PublishResponse> => await call<PublishResponse>('publish', req)
}

/** base64 → bytes (atob gives a binary string; one pass copies it out). */
export function fromBase64 (b64: string): Uint8Array {
  const bin = atob(b64)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

/** True for the rejection of an aborted fetch: a stale request, not an error to show. */
export const isAbort = (e: unknown): boolean => e instanceof DOMException && e.name === 'AbortError'
