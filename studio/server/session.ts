// What the page starts from (GET /api/session), and where the template is saved and published.
import { readFile, writeFile } from 'node:fs/promises'
import { resolve as resolvePath } from 'node:path'
import { templateSchema } from '../../engine/template/schema.js'
import { DPIS } from '../../engine/zpl/dpi.js'
import type { Context } from '../../server/context.js'
import { problem } from '../../server/errors.js'
import type { StudioSession, StudioSource } from '../contract.js'
import { validateText } from './validate.js'

export interface StudioOptions {
  /** The template file (file mode). */
  file?: string
  /** A published template of the workspace (workspace mode). */
  template?: string
  workspace?: string
  /** Rows by dataset code: { "<dataset code>": rows }. */
  data?: string
}

export interface SessionState {
  source: StudioSource
  templateText: string
  dataFile: string | null
  rows: unknown
  environments: string[]
}

async function readJsonFile (path: string): Promise<unknown> {
  let text: string
  try { text = await readFile(path, 'utf8') } catch (err) {
    throw problem('VALIDATION_FAILED', `${path}: ${(err as Error).message}`)
  }
  try { return JSON.parse(text) } catch (err) {
    throw problem('VALIDATION_FAILED', `${path}: not valid JSON (${(err as Error).message})`)
  }
}

/** Reads the file or the version in force, the rows file, the workspace's environments. */
export async function openSession (options: StudioOptions, ctx: Context | null): Promise<SessionState> {
  let source: StudioSource
  let templateText: string
  if (options.file !== undefined) {
    const path = resolvePath(options.file)
    try { templateText = await readFile(path, 'utf8') } catch (err) {
      throw problem('VALIDATION_FAILED', `${options.file}: ${(err as Error).message}`)
    }
    source = { kind: 'file', path }
  } else {
    if (ctx === null || options.template === undefined || options.workspace === undefined) {
      throw problem('VALIDATION_FAILED', 'give a template FILE, or --template CODE with --workspace ID')
    }
    const resolved = await ctx.resolver.resolve(options.workspace, options.template)
    templateText = resolved.definitionJson
    source = { kind: 'workspace', workspaceId: options.workspace, code: resolved.code, version: resolved.version }
  }
  const dataFile = options.data === undefined ? null : resolvePath(options.data)
  const rows = dataFile === null ? null : await readJsonFile(dataFile)
  const environments = ctx === null || options.workspace === undefined
    ? []
    : (await ctx.repos.environments.list(options.workspace)).map((e) => e.key)
  return { source, templateText, dataFile, rows, environments }
}

/** The session as the page sees it; `kind` follows the template's text as it is on disk now. */
export function sessionBody (state: SessionState): StudioSession {
  const def = validateText(state.templateText).checked?.definition
  const isLabel = def?.format === 'label' || /"format"\s*:\s*"label"/.test(state.templateText)
  return {
    source: state.source,
    templateText: state.templateText,
    schema: templateSchema,
    kind: isLabel ? 'zpl' : 'pdf',
    dpis: isLabel ? [...DPIS] : [],
    environments: state.environments,
    dataFile: state.dataFile,
    rows: state.rows === null || typeof state.rows !== 'object' ? null : state.rows
  }
}

/** POST /api/save: writes the file (file mode only); the text need not be valid (work in progress). */
export async function saveText (state: SessionState, text: string): Promise<{ saved: string }> {
  if (state.source.kind !== 'file') throw problem('VALIDATION_FAILED', 'save: the studio was opened on a workspace template, not a file')
  await writeFile(state.source.path, text)
  state.templateText = text
  return { saved: state.source.path }
}
