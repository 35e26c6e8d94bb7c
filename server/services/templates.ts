// CONTRACT STUB (owned by the templates helper, who replaces the bodies): template versions in
// the store, publish, and resolution for renders and the read API.
import type { TemplateDefinition } from '../../workers/template/definition.js'
import type { ParameterCheckResult } from '../../workers/template/parameters.js'
import type { Db } from '../store/db.js'
import { problem } from '../errors.js'

/** A published version ready to render; immutable, so cached per versionKey. */
export interface ResolvedTemplate {
  templateId: string
  code: string
  format: 'document' | 'label'
  outputFormat: 'pdf' | 'zpl'
  version: number
  /** `<templateId>:<version>`: the engine's compile-cache key. */
  versionKey: string
  /** The template file as published (JSON text), handed to the engine. */
  definitionJson: string
  definition: TemplateDefinition
  checkParameters: (values: unknown) => ParameterCheckResult
}

export interface PublishResult { templateId: string, code: string, version: number, previousVersion: number | null, format: 'document' | 'label' }

export function templatesService (_db: Db) {
  return {
    /**
     * Spec order: TEMPLATE_NOT_FOUND, TEMPLATE_NOT_PUBLISHED, VERSION_NOT_FOUND, TEMPLATE_DISABLED (409).
     * Reads the version in force at call time (a publish is visible to the very next render).
     */
    async resolve (_workspaceId: string, code: string, _version?: number): Promise<ResolvedTemplate> {
      throw problem('TEMPLATE_NOT_FOUND', `no template ${code}`)
    },
    /** Validates, compiles once, stores a new version and the template.published event in one transaction. */
    async publish (_workspaceId: string, _file: unknown, _options: { note?: string, publishedBy?: string } = {}): Promise<PublishResult> {
      throw new Error('not implemented')
    }
  }
}
export type TemplatesService = ReturnType<typeof templatesService>
