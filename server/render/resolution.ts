// What the render pipeline needs of the template store on its hot path: a published version
// ready to render and the environment of the render, read in one statement. Declared here (the
// render side), implemented by resolver.ts, wired by the composition root (server/context.ts):
// the pipeline depends on this interface, as auth/ depends on its RenderKeyReader.
import type { TemplateDefinition } from '../../engine/template/definition.js'
import type { ParameterCheckResult } from '../../engine/template/parameters.js'
import type { RenderKeyReader } from '../auth/authenticate.js'
import type { Environment } from '../store/repos/environments.js'

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

/** A render's template version in force and its environment (undefined: the workspace has none of that key). */
export interface Resolution { resolved: ResolvedTemplate, environment: Environment | undefined }

/** The template reads of the render pipeline (jobs, dataset runs, the demo's check). */
export interface TemplateResolver {
  /**
   * The version in force (or the one asked for). Spec order: TEMPLATE_NOT_FOUND,
   * TEMPLATE_NOT_PUBLISHED, VERSION_NOT_FOUND, TEMPLATE_DISABLED (409). A publish is visible to
   * the very next call.
   */
  resolve: (workspaceId: string, code: string, version?: number) => Promise<ResolvedTemplate>
  /**
   * resolve() and the environment of the render in the same round trip. The template's errors
   * come first; `environment` is undefined when the workspace has no environment of that key
   * (the caller answers ENVIRONMENT_NOT_FOUND).
   */
  resolveWithEnvironment: (workspaceId: string, code: string, version: number | undefined,
    envKey: string) => Promise<Resolution>
}

/** Both halves of the hot path's read: the pipeline's, and the one auth/ does with the key's row. */
export interface RenderResolver extends TemplateResolver, RenderKeyReader<Resolution> {}
