// The client's request and response types, taken from the OpenAPI document the service serves
// (client/api-types.ts, generated from it by openapi-typescript: scripts/client-types.mjs). The
// document is generated from the routes' schemas, so a route change reaches these types through it;
// test/client/api-types.test.ts fails while the checked-in file lags behind. Nothing of server/
// is imported, so the published declarations need neither fastify nor the server's modules.
import type { components } from './api-types.js'

type Schemas = components['schemas']

/** Body of POST /v1/render (spec 2.1). `async` is set by render()/renderAsync() themselves. */
export type RenderRequest = Omit<Schemas['RenderRequest'], 'async'>
/** A render job (spec 2.2). */
export type RenderJob = Schemas['RenderJob']
export type JobStatus = RenderJob['status']
/** A failed job's error.code: the render codes of Part 7, RENDER_TIMEOUT and JOB_ABANDONED. */
export type JobErrorCode = NonNullable<RenderJob['error']>['code']
/** A template record (spec 2.3). */
export type TemplateRecord = Schemas['TemplateRecord']
/** One page of GET /v1/templates. */
export type TemplatePage = Schemas['TemplatePage']
/** Body of POST /v1/datasets/{template}/{dataset}/execute (spec 2.4). */
export type DatasetRequest = Schemas['DatasetRequest']
export type DatasetResult = Schemas['DatasetResult']

/** Every errorCode of the service's catalogue. */
export type ErrorCode = Schemas['Problem']['errorCode']
/** A problem document (spec 2.6). */
export type ProblemBody = Schemas['Problem']

/** The OpenAPI document's own types, for callers who want more than the client's (e.g. per status). */
export type { components, paths, webhooks, operations } from './api-types.js'

/** A synchronous render's document with the Part 4 response headers as typed fields. */
export interface RenderedDocument {
  /** The document bytes (one buffer, read once). */
  body: Buffer
  contentType: string
  format: 'pdf' | 'zpl'
  /** From Content-Disposition (RFC 5987 `filename*` preferred). */
  fileName: string
  /** X-Template-Version */
  version: number
  /** X-Page-Count (PDF), else null. */
  pageCount: number | null
  /** X-Label-Count (ZPL), else null. */
  labelCount: number | null
  /** X-Environment */
  environment: string
  /** X-Run-ID: the run in the workspace's run history. */
  runId: string
  correlationId: string
}

/** What downloadDocument() wrote. */
export interface DownloadedDocument {
  bytes: number
  contentType: string
  fileName: string
}
