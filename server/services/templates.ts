// The templates' admin and read service: publish (validate, compile once, store the version and
// its template.published event in one transaction) and the read API (template-read.ts). The
// render's hot-path read of a version is not here: render/resolver.ts (behind the interfaces
// auth/ and render/ declare), built by the composition root.
import type { TemplateDefinition } from '../../engine/template/definition.js'
import { publicTemplateView } from '../../engine/template/parameters.js'
import { transaction } from '../store/db.js'
import type { Db } from '../store/db.js'
import type { TemplatesRepo } from '../store/repos/templates.js'
import type { Outbox } from '../webhooks/outbox.js'
import { problem } from '../errors.js'
import { checkTemplateFile } from './template-file.js'
import { createTemplateReads } from './template-read.js'
import type { PublicView, TemplateReads } from './template-read.js'

export { checkTemplateFile } from './template-file.js'
export type { CheckedTemplate } from './template-file.js'
export { decodeCursor, encodeCursor } from './template-read.js'
export type { TemplatePage, TemplateRecord, TemplateSummary } from './template-read.js'

export interface PublishResult {
  templateId: string
  code: string
  version: number
  previousVersion: number | null
  format: 'document' | 'label'
}

export interface TemplatesService extends TemplateReads {
  /** Validates, compiles once, stores a new version and the template.published event in one transaction. */
  publish: (workspaceId: string, file: unknown,
    options?: { note?: string, publishedBy?: string }) => Promise<PublishResult>
}

const ER_NO_REFERENCED_ROW_2 = 1452
const ER_LOCK_DEADLOCK = 1213

function checkText (name: string, value: string | undefined, max: number): string | null {
  if (value === undefined || value === '') return null
  if (value.length > max) {
    throw problem('VALIDATION_FAILED', `${name}: at most ${max} characters`,
      { errors: { [name]: [`at most ${max} characters`] } })
  }
  return value
}

const isErrno = (err: unknown, errno: number): boolean => (err as { errno?: number } | null)?.errno === errno

export function createTemplatesService (db: Db, repo: TemplatesRepo, outbox: Pick<Outbox, 'append'>): TemplatesService {
  async function storeVersion (
    workspaceId: string,
    def: TemplateDefinition,
    text: string,
    note: string | null,
    publishedBy: string | null
  ): Promise<PublishResult> {
    return await transaction(db, async (conn, tx) => {
      const t = await repo.lockForPublish(conn, workspaceId, def.code, def.format)
      if (t.format !== def.format) {
        throw problem(
          'CONFLICT',
          `template ${def.code} is a ${t.format}; a new version cannot change its format to ${def.format}`,
          { errors: { '/format': [`must stay "${t.format}" (the format of the published versions)`] } }
        )
      }
      const version = t.maxVersion + 1
      const view: PublicView = publicTemplateView(def)
      await repo.insertVersion(conn, {
        templateId: t.id,
        version,
        description: def.description ?? '',
        documentType: def.documentType ?? '',
        definition: text,
        publicView: JSON.stringify(view),
        note,
        publishedBy
      })
      const result: PublishResult = {
        templateId: t.id,
        code: def.code,
        version,
        previousVersion: t.currentVersion,
        format: def.format
      }
      await outbox.append(tx, {
        workspaceId,
        type: 'template.published',
        data: {
          templateId: t.id,
          template: def.code,
          version,
          previousVersion: t.currentVersion,
          format: def.format,
          note,
          publishedBy
        }
      })
      return result
    })
  }

  return {
    ...createTemplateReads(repo),

    async publish (workspaceId, file, options = {}) {
      const note = checkText('note', options.note, 1000)
      const publishedBy = checkText('publishedBy', options.publishedBy, 200)
      const { text, definition } = checkTemplateFile(file)
      for (let attempt = 1; ; attempt++) {
        try {
          return await storeVersion(workspaceId, definition, text, note, publishedBy)
        } catch (err) {
          if (isErrno(err, ER_NO_REFERENCED_ROW_2)) throw problem('WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`)
          // InnoDB may pick a concurrent first publish of a new code as a deadlock victim; the
          // transaction was rolled back whole, so running it again is safe.
          if (!isErrno(err, ER_LOCK_DEADLOCK) || attempt >= 3) throw err
        }
      }
    }
  }
}
