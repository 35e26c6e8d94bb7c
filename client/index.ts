// `svc/client`: the typed client of the render API (docs/client.md).
//
//   import { SvcClient, ProblemError } from 'svc/client'
//   const svc = new SvcClient({ baseUrl: 'https://render.example.com', apiKey: process.env.SVC_API_KEY })
//   const doc = await svc.render({ template: 'invoice', parameters: { invoiceId: 42 } })
//   // doc.body (Buffer), doc.pageCount, doc.version, doc.runId …
import { createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import type { Writable } from 'node:stream'
import { Transport } from './transport.js'
import type { RetryMode, TransportOptions } from './transport.js'
import { waitFor } from './wait.js'
import { headerValue } from './whole-response.js'
import type { WholeResponse } from './whole-response.js'
import type { WaitOptions } from './wait.js'
import type {
  DatasetRequest,
  DatasetResult,
  DownloadedDocument,
  RenderJob,
  RenderRequest,
  RenderedDocument,
  TemplatePage,
  TemplateRecord
} from './types.js'

export * from './types.js'
export { ProblemError, NetworkError, JobTimeoutError } from './problem.js'
export type { ClientErrorCode } from './problem.js'
export type { RetryEvent, RetryOptions } from './retry.js'
export type { TlsOptions } from './transport.js'
export type { WaitOptions } from './wait.js'
// The receiver side of webhooks (Part 6), with several secrets during a rotation.
export { verifyWebhook } from '../server/webhooks/verify.js'
export type { VerifyOptions, VerifyResult } from '../server/webhooks/verify.js'

export interface ClientOptions extends TransportOptions {
  /** https://host[:port][/prefix] — the API is under `<baseUrl>/api/v1`. */
  baseUrl: string
  /** Workspace API key (svc_live_… or svc_test_…). Kept server-side; never logged by the client. */
  apiKey: string
  /** Sent as Svc-Workspace: a key of another workspace then gets 403 WORKSPACE_MISMATCH. */
  workspace?: string
  userAgent?: string
}

/** Per call: an AbortSignal and a correlation id (sent as X-Correlation-ID, same on every retry). */
export interface CallOptions { signal?: AbortSignal, correlationId?: string }

const header = (res: { headers: WholeResponse['headers'] }, name: string): string | undefined => headerValue(res.headers, name)
const intHeader = (res: WholeResponse, name: string): number | null => {
  const v = header(res, name)
  return v === undefined || !/^\d+$/.test(v) ? null : Number(v)
}

/** `attachment; filename="a.pdf"; filename*=UTF-8''%C3%A4.pdf` → the UTF-8 name when present. */
export function fileNameOf (disposition: string | undefined): string {
  if (disposition === undefined) return ''
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1]
  if (star !== undefined) { try { return decodeURIComponent(star) } catch { /* fall back to the ASCII name */ } }
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? ''
}

export class SvcClient {
  private readonly transport: Transport
  private readonly base: URL
  private readonly headers: Record<string, string> & { 'user-agent': string }

  constructor (options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('apiKey: a workspace API key is required (e.g. process.env.SVC_API_KEY)')
    }
    this.base = new URL(options.baseUrl.replace(/\/+$/, '') + '/api/v1/')
    this.transport = new Transport(options)
    this.headers = { authorization: `Bearer ${options.apiKey}`, 'user-agent': options.userAgent ?? 'svc-client/1' }
    if (options.workspace !== undefined) this.headers['svc-workspace'] = options.workspace
  }

  private async call (
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    retry: RetryMode,
    call: CallOptions = {}
  ): Promise<WholeResponse> {
    const headers = { ...this.headers }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (call.correlationId !== undefined) headers['x-correlation-id'] = call.correlationId
    return await this.transport.sendWhole({
      method,
      url: new URL(path, this.base),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      retry,
      signal: call.signal
    })
  }

  private async json<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    retry: RetryMode,
    call?: CallOptions
  ): Promise<T> {
    return JSON.parse((await this.call(method, path, body, retry, call)).body.toString('utf8')) as T
  }

  /** Synchronous render: the document and its Part 4 headers. Retried (a sync render is idempotent). */
  async render (request: RenderRequest, call?: CallOptions): Promise<RenderedDocument> {
    // Without `async`: a synchronous render is the API's default.
    const sync: RenderRequest & { async?: unknown } = { ...request }
    delete sync.async
    const res = await this.call('POST', 'render', sync, 'always', call)
    return {
      body: res.body,
      contentType: header(res, 'content-type') ?? '',
      format: header(res, 'x-document-format') === 'zpl' ? 'zpl' : 'pdf',
      fileName: fileNameOf(header(res, 'content-disposition')),
      version: intHeader(res, 'x-template-version') ?? 0,
      pageCount: intHeader(res, 'x-page-count'),
      labelCount: intHeader(res, 'x-label-count'),
      environment: header(res, 'x-environment') ?? '',
      runId: header(res, 'x-run-id') ?? '',
      correlationId: header(res, 'x-correlation-id') ?? ''
    }
  }

  /** Asynchronous render: the queued job (202). Not idempotent, so a network failure is retried
   *  only when the request cannot have reached the server; 429 and 503 answers are retried. */
  async renderAsync (request: RenderRequest, call?: CallOptions): Promise<RenderJob> {
    return await this.json<RenderJob>('POST', 'render', { ...request, async: true }, 'unsent', call)
  }

  async getJob (jobId: string, call?: CallOptions): Promise<RenderJob> {
    return await this.json<RenderJob>('GET', `jobs/${encodeURIComponent(jobId)}`, undefined, 'always', call)
  }

  /** Polls until succeeded or failed (returned, not thrown); JobTimeoutError at the deadline.
   *  Given the job that renderAsync() returned, the first poll waits one interval. */
  async waitForJob (job: string | RenderJob, options: WaitOptions = {}): Promise<RenderJob> {
    const jobId = typeof job === 'string' ? job : job.jobId
    return await waitFor((signal) => this.getJob(jobId, { signal }), typeof job === 'string' ? undefined : job, options)
  }

  /** Streams a document (a job's documentUrl, no API key sent) to a file path or a writable
   *  stream, chunk by chunk: the document is never held in memory as a whole. */
  async downloadDocument (
    documentUrl: string,
    destination: string | Writable,
    call: CallOptions = {}
  ): Promise<DownloadedDocument> {
    const url = new URL(documentUrl, this.base)
    const headers: Record<string, string> = { 'user-agent': this.headers['user-agent'] }
    if (call.correlationId !== undefined) headers['x-correlation-id'] = call.correlationId
    const res = await this.transport.send({ method: 'GET', url, headers, retry: 'always', signal: call.signal })
    let bytes = 0
    res.body.on('data', (chunk: Buffer) => {
      bytes += chunk.length
    })
    await pipeline(res.body, typeof destination === 'string' ? createWriteStream(destination) : destination, {
      signal: call.signal
    })
    return {
      bytes,
      contentType: header(res, 'content-type') ?? '',
      fileName: fileNameOf(header(res, 'content-disposition'))
    }
  }

  /** Every published, active template, page after page (pageSize 1..100, default 50). */
  async * templates (options: { pageSize?: number } & CallOptions = {}): AsyncGenerator<TemplateRecord> {
    let cursor: string | null = null
    do {
      const query = new URLSearchParams({ limit: String(options.pageSize ?? 50) })
      if (cursor !== null) query.set('cursor', cursor)
      const page: TemplatePage = await this.json<TemplatePage>(
        'GET',
        `templates?${query.toString()}`,
        undefined,
        'always',
        options
      )
      yield * page.data
      cursor = page.nextCursor
    } while (cursor !== null)
  }

  /** templates() collected into one array. */
  async listTemplates (options: { pageSize?: number } & CallOptions = {}): Promise<TemplateRecord[]> {
    const all: TemplateRecord[] = []
    for await (const t of this.templates(options)) all.push(t)
    return all
  }

  async getTemplate (code: string, call?: CallOptions): Promise<TemplateRecord> {
    return await this.json<TemplateRecord>('GET', `templates/${encodeURIComponent(code)}`, undefined, 'always', call)
  }

  /** Rows of one dataset as JSON (reads only: retried like a sync render). */
  async executeDataset (
    template: string,
    dataset: string,
    request: DatasetRequest = {},
    call?: CallOptions
  ): Promise<DatasetResult> {
    const path = `datasets/${encodeURIComponent(template)}/${encodeURIComponent(dataset)}/execute`
    return await this.json<DatasetResult>('POST', path, request, 'always', call)
  }

  async close (): Promise<void> {
    await this.transport.close()
  }
}
