// The engine's contract with the rest of the system. engine/ imports nothing from server/;
// server/ builds RenderInput from the database and hands it to the pool.

/** Output kind of a template: `document` renders PDF, `label` renders ZPL. */
export type TemplateFormat = 'document' | 'label'
export type OutputFormat = 'pdf' | 'zpl'

/** A row as read from a data source (mysql2 gives Date for DATETIME and string for DECIMAL). */
export type Row = Record<string, unknown>

/** Dataset values by dataset code: a `single` dataset is one row or null, `multiple` an array. */
export type DatasetValues = Record<string, Row | Row[] | null>

export interface RenderLimits {
  /** Maximum pages of a PDF. */
  maxPages: number
  /** Maximum output bytes (PDF or ZPL). */
  maxBytes: number
  /** Maximum rows over all datasets of one render (also checked by the server before reading). */
  maxRows: number
  /** Maximum labels of one ZPL render. */
  maxLabels: number
}

export interface RenderInput {
  /** Cache key of an immutable published version, e.g. `<templateId>:<version>`. */
  versionKey: string
  /** The template file as published (JSON text): parsed and compiled only on a cache miss. */
  definition: string
  /** Validated, coerced parameter values (defaults applied). */
  parameters: Record<string, unknown>
  /** Caller context (company, user, language …). */
  context: Record<string, unknown>
  datasets: DatasetValues
  limits: RenderLimits
  /** Labels: the printer resolution to render at (152, 203, 300, 600); absent = as authored. */
  labelDpi?: 152 | 203 | 300 | 600
}

export type RenderErrorCode = 'RENDER_FAILED' | 'RENDER_LIMIT_EXCEEDED' | 'RENDER_TIMEOUT' | 'RENDER_BUSY'

export interface RenderSuccess {
  ok: true
  format: OutputFormat
  bytes: Uint8Array
  pageCount: number
  labelCount: number
  /** Labels: the printer resolution the ZPL is for (absent for documents). */
  labelDpi?: number
  /** Things the caller should know about a document that did render (absent when none). */
  warnings?: string[]
}

export interface RenderFailure {
  ok: false
  code: RenderErrorCode
  /** For people: names the element path and the expression or the limit. Never SQL. */
  message: string
}

/** Workers answer with a value, never a thrown error: custom error fields do not survive the thread hop. */
export type RenderResult = RenderSuccess | RenderFailure
