// The studio's HTTP contract (issue 36), types only: studio/server implements it, studio/web calls it.
// Provisional copy written by studio-web against /work/prompts/studio-common.md until studio-api's
// own lands; on merge studio-api's version wins.

/** Where the template being edited comes from. */
export type StudioSource =
  | { kind: 'file', path: string }
  | { kind: 'workspace', workspaceId: string, code: string, version: number }

/** GET api/session */
export interface StudioSession {
  source: StudioSource
  templateText: string
  /** The template JSON Schema the server enforces (the one publish uses). */
  schema: object
  kind: 'pdf' | 'zpl'
  dpis: number[]
  environments: string[]
  dataFile: string | null
  rows: object | null
}

/** One finding of POST api/validate; line and column (1-based) are where `path`'s value starts. */
export interface StudioProblem {
  path: string
  line: number
  column: number
  message: string
  suggestion?: string
}

/** POST api/validate */
export interface ValidateRequest { templateText: string }
export interface ValidateResponse { ok: boolean, errors: StudioProblem[], warnings: StudioProblem[] }

/** Where a render's rows come from. */
export type StudioData =
  | { kind: 'file' }
  | { kind: 'rows', rows: object }
  | { kind: 'dataset', environment: string }
  | { kind: 'generated' }

/** POST api/render */
export interface RenderRequest {
  templateText: string
  data: StudioData
  parameters: Record<string, unknown>
  context: Record<string, unknown>
  dpi?: number
}
export interface RenderResponse {
  format: 'pdf' | 'zpl'
  pdf?: string
  pngs?: string[]
  pageCount: number
  labelCount: number
  xml?: string
  warnings: string[]
  ms: number
}

/** POST api/save (file mode only) */
export interface SaveRequest { templateText: string }
export interface SaveResponse { saved: string }

/** POST api/publish */
export interface PublishRequest { templateText: string, note?: string }
export interface PublishResponse { code: string, version: number, previousVersion: number | null }

/** An RFC 9457 problem as the server sends it. */
export interface StudioProblemDocument {
  type?: string
  title?: string
  status?: number
  detail?: string
  errorCode?: string
  errors?: unknown[]
}
