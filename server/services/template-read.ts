// The templates' read API (spec 2.3: list and get, never the SQL of a dataset) and the admin
// view of the CLI (every template, disabled ones too, and switching one off or on).
import type { DatasetDef } from '../../engine/template/definition.js'
import { TEMPLATE_CODE } from '../../engine/template/schema.js'
import { problem } from '../errors.js'
import type { RecordRow, TemplateFormat, TemplatesRepo } from '../store/repos/templates.js'

/** The public pieces of a version, stored as JSON at publish (engine/template publicTemplateView). */
export interface PublicView {
  parameters: Array<{ name: string, type: string, required: boolean, defaultValue: unknown, description: string }>
  parameterSchema: Record<string, unknown>
  datasets: Array<{
    code: string
    description: string
    cardinality: DatasetDef['cardinality']
    fields: Array<{ name: string, type: string }>
  }>
}

/** Template record of spec 2.3 (never the SQL of a dataset). */
export interface TemplateRecord extends PublicView {
  code: string
  description: string
  documentType: string
  format: TemplateFormat
  version: number
  updatedAt: string
}
export interface TemplatePage { data: TemplateRecord[], nextCursor: string | null }
/** The admin view (CLI): every template, disabled ones too. */
export interface TemplateSummary {
  code: string
  format: TemplateFormat
  version: number | null
  disabled: boolean
  updatedAt: string
  description: string
}

export interface TemplateReads {
  /** Published, active templates ordered by code (read API). */
  list: (workspaceId: string, options?: { limit?: number, cursor?: string }) => Promise<TemplatePage>
  /** One template record; TEMPLATE_NOT_FOUND, TEMPLATE_NOT_PUBLISHED, TEMPLATE_DISABLED in that order. */
  get: (workspaceId: string, code: string) => Promise<TemplateRecord>
  /** Every template of the workspace, disabled ones included (admin CLI). */
  listAll: (workspaceId: string) => Promise<TemplateSummary[]>
  /** Takes effect on the next render: the resolver reads a template's state with every version. */
  setDisabled: (workspaceId: string, code: string, disabled: boolean) => Promise<{ code: string, disabled: boolean }>
}

const CODE = new RegExp(TEMPLATE_CODE)
const PAGE = 500

/** Opaque list cursor: base64url of the last code of the page (codes are ordered bytewise). */
export const encodeCursor = (code: string): string => Buffer.from(code, 'utf8').toString('base64url')
export function decodeCursor (cursor: string): string {
  const code = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!CODE.test(code) || encodeCursor(code) !== cursor) {
    throw problem('VALIDATION_FAILED', 'cursor: not a cursor from a previous page',
      { errors: { cursor: ['is not a cursor from a previous page'] } })
  }
  return code
}

function toRecord (r: RecordRow): TemplateRecord {
  const view = JSON.parse(r.publicView as string) as PublicView
  return {
    code: r.code,
    description: r.description,
    documentType: r.documentType,
    format: r.format,
    version: r.version as number,
    updatedAt: r.updatedAt.toISOString(),
    parameters: view.parameters,
    parameterSchema: view.parameterSchema,
    datasets: view.datasets
  }
}

export function createTemplateReads (repo: TemplatesRepo): TemplateReads {
  return {
    async list (workspaceId, options = {}) {
      const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 100)
      const afterCode = options.cursor === undefined || options.cursor === '' ? null : decodeCursor(options.cursor)
      const rows = await repo.page(workspaceId, { afterCode, limit: limit + 1, activeOnly: true })
      const data = rows.slice(0, limit).map(toRecord)
      const last = data.at(-1)
      return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last.code) : null }
    },

    async get (workspaceId, code) {
      const row = CODE.test(code) ? await repo.record(workspaceId, code) : undefined
      if (row === undefined) throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
      if (row.version === null || row.publicView === null) {
        throw problem('TEMPLATE_NOT_PUBLISHED', `template ${code} has no published version`)
      }
      if (row.disabled) throw problem('TEMPLATE_DISABLED', `template ${code} is disabled in this workspace`)
      return toRecord(row)
    },

    async listAll (workspaceId) {
      const out: TemplateSummary[] = []
      let afterCode: string | null = null
      for (;;) {
        const rows = await repo.page(workspaceId, { afterCode, limit: PAGE, activeOnly: false })
        for (const r of rows) {
          out.push({
            code: r.code,
            format: r.format,
            version: r.version,
            disabled: r.disabled,
            updatedAt: r.updatedAt.toISOString(),
            description: r.description
          })
        }
        const last = rows.at(-1)
        if (rows.length < PAGE || last === undefined) return out
        afterCode = last.code
      }
    },

    async setDisabled (workspaceId, code, disabled) {
      if (!(await repo.setDisabled(workspaceId, code, disabled))) {
        throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
      }
      return { code, disabled }
    }
  }
}
