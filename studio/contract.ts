// The studio's local API (issue 36), shared by its two sides: studio/server/ (Node, the `svc studio`
// process) and studio/web/ (the page). Types only: both import it, neither imports the other.
// Changing it is a contract change between the two engineers (say so in the commit message).

/** Where the template being edited comes from. */
export type StudioSource =
  | { kind: 'file', path: string }
  | { kind: 'workspace', workspaceId: string, code: string, version: number }

/** GET /TOKEN/api/session */
export interface StudioSession {
  source: StudioSource
  templateText: string
  /** The template JSON Schema the server enforces (the same one publish uses). */
  schema: object
  kind: 'pdf' | 'zpl'
  /** Printer resolutions a label may be previewed at ([] for documents). */
  dpis: number[]
  /** Environment keys of the workspace; [] for a lone file without --workspace. */
  environments: string[]
  /** The --data file, when given, and its rows `{ "<dataset code>": rows }`. */
  dataFile: string | null
  rows: object | null
}

/** One error or warning, placed where its JSON path's value starts in the template text. */
export interface StudioProblem {
  /** JSON pointer ('' or '/' for the whole document). */
  path: string
  /** 1-based. */
  line: number
  /** 1-based. */
  column: number
  message: string
  /** The "did you mean" of `svc templates validate`, when it has one. */
  suggestion?: string
}

/** POST /TOKEN/api/validate */
export interface ValidateRequest { templateText: string }
export interface ValidateResponse { ok: boolean, errors: StudioProblem[], warnings: StudioProblem[] }

/** Where a render's rows come from. */
export type RenderData =
  | { kind: 'file' }
  | { kind: 'rows', rows: object }
  | { kind: 'dataset', environment: string }
  | { kind: 'generated' }

/** POST /TOKEN/api/render */
export interface RenderRequest {
  templateText: string
  data: RenderData
  parameters: object
  context: object
  /** Labels only: 152, 203, 300 or 600. */
  dpi?: number
}
export interface RenderResponse {
  format: 'pdf' | 'zpl'
  /** base64 of the PDF (documents). */
  pdf?: string
  /** base64 PNGs, one per label, drawn at `dpi` (labels). */
  pngs?: string[]
  pageCount: number
  labelCount: number
  /** The e-invoice XML the PDF embeds (templates with document.einvoice). */
  xml?: string
  warnings: string[]
  /** Time the server spent on the render (ms). */
  ms: number
}

/** POST /TOKEN/api/save (file mode only) */
export interface SaveRequest { templateText: string }
export interface SaveResponse { saved: string }

/** POST /TOKEN/api/publish (needs a workspace) */
export interface PublishRequest { templateText: string, note?: string }
export interface PublishResponse { code: string, version: number, previousVersion: number | null }

/** Every error answer: an RFC 9457 problem (application/problem+json) with the catalogue's errorCode. */
export interface StudioErrorBody {
  type: string
  title: string
  status: number
  detail: string
  errorCode: string
  correlationId: string
  errors?: Record<string, string[]>
}
