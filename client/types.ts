// The client's request and response types, derived at compile time from the very schema objects
// the routes validate and serialise with (server/http/routes/*): a route change that is not
// reflected here fails to compile instead of drifting. Derived by FromRouteSchema, the same
// derivation the routes' type provider uses (server/http/schema-types.ts). Type-only imports:
// nothing of server/ is loaded at run time.
import type { FromRouteSchema } from '../server/http/schema-types.js'
import type { renderBodySchema } from '../server/http/routes/render.js'
import type { jobSchema } from '../server/http/routes/job-schema.js'
import type { templateRecord, listSchema } from '../server/http/routes/templates.js'
import type { executeSchema } from '../server/http/routes/datasets.js'
import type { ErrorCode as CatalogueCode, ProblemBody as ServerProblemBody } from '../server/errors.js'

/** Body of POST /v1/render (spec 2.1). `async` is set by render()/renderAsync() themselves. */
export type RenderRequest = Omit<FromRouteSchema<typeof renderBodySchema, 'sent'>, 'async'>
/** A render job (spec 2.2). */
export type RenderJob = FromRouteSchema<typeof jobSchema>
export type JobStatus = RenderJob['status']
/** A template record (spec 2.3). */
export type TemplateRecord = FromRouteSchema<typeof templateRecord>
/** One page of GET /v1/templates. */
export type TemplatePage = FromRouteSchema<typeof listSchema['response'][200]>
/** Body of POST /v1/datasets/{template}/{dataset}/execute (spec 2.4). */
export type DatasetRequest = FromRouteSchema<typeof executeSchema['body'], 'sent'>
export type DatasetResult = FromRouteSchema<typeof executeSchema['response'][200]>

/** Every errorCode of the service's catalogue (server/errors.ts). */
export type ErrorCode = CatalogueCode
/** A problem document (spec 2.6). */
export type ProblemBody = ServerProblemBody

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
