// `svc demo`: a ready-to-try workspace. Idempotent: the workspace is found again (SVC_HOME/demo.json,
// else the workspace named "Demo"), databases and users are created if missing, sample data is
// loaded once, a template is published only when its file changed. API keys are the exception:
// their secrets are shown once, so every run creates a fresh live and test key.
import { mkdir, readFile, writeFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import type { Context } from '../context.js'
import { resolveDatabaseUrl } from '../context.js'
import { parseMysqlUrl } from '../store/db.js'
import type { Db } from '../store/db.js'
import { SCOPES } from '../util/api-key-format.js'
import type { CreatedKey } from '../services/api-keys.js'
import { isProblem } from '../errors.js'
import { examplesDir } from '../util/paths.js'
import { seedDemoDatabase } from './data.js'

export const DEMO_WORKSPACE = 'Demo'
export const DEMO_ENVIRONMENTS = [
  { key: 'development', short: 'dev', seed: 1001 },
  { key: 'staging', short: 'stg', seed: 2002 },
  { key: 'production', short: 'prod', seed: 3003 }
] as const

export interface DemoOptions {
  /** Prefix of the demo databases and users (`demo` → demo_development, demo_dev_ro). */
  prefix?: string
  /** Where demo.json lives (SVC_HOME). */
  home: string
  /**
   * Creates the demo databases and read-only users: the private instance's administrator over
   * its socket (the service user may not), or for SVC_DATABASE_URL the operator's account.
   */
  admin: Db
}

export interface DemoEnvironment {
  key: string
  database: string
  user: string
  production: boolean
  seeded: boolean
  rows: Record<string, number>
}
export interface DemoTemplate { code: string, version: number, published: boolean }

export interface DemoResult {
  workspace: { id: string, name: string, created: boolean }
  environments: DemoEnvironment[]
  templates: DemoTemplate[]
  keys: { live: CreatedKey, test: CreatedKey }
  /** True when this run found an existing demo (its earlier keys still work; these are new). */
  rerun: boolean
}

const NAME = /^[a-z][a-z0-9_]{0,40}$/

async function readState (home: string): Promise<{ workspaceId?: string }> {
  try { return JSON.parse(await readFile(join(home, 'demo.json'), 'utf8')) as { workspaceId?: string } } catch { return {} }
}

async function findWorkspace (ctx: Context, home: string): Promise<{ id: string, name: string, created: boolean }> {
  const state = await readState(home)
  if (state.workspaceId !== undefined) {
    try {
      const w = await ctx.services.workspaces.get(state.workspaceId)
      return { id: w.id, name: w.name, created: false }
    } catch (err) { if (!isProblem(err) || err.code !== 'WORKSPACE_NOT_FOUND') throw err }
  }
  const named = (await ctx.services.workspaces.list()).find((w) => w.name === DEMO_WORKSPACE)
  if (named !== undefined) return { id: named.id, name: named.name, created: false }
  const w = await ctx.services.workspaces.create(DEMO_WORKSPACE)
  return { id: w.id, name: w.name, created: true }
}

/** Database, read-only user (SELECT only) and sample rows of one environment; returns its data-source URL. */
async function prepareDatabase (
  ctx: Context,
  admin: Db,
  workspaceId: string,
  prefix: string,
  e: (typeof DEMO_ENVIRONMENTS)[number]
): Promise<{ url: string, env: DemoEnvironment }> {
  const database = `${prefix}_${e.key}`
  const user = `${prefix}_${e.short}_ro`
  const server = parseMysqlUrl(await resolveDatabaseUrl(ctx.config))
  // Keep the password an existing environment already holds, so a re-run changes nothing.
  const existing = await ctx.repos.environments.get(workspaceId, e.key)
  const current = existing === undefined ? null : ctx.services.environments.openDataSource(existing)
  const password =
    current !== null && current.user === user && current.database === database && current.password !== ''
      ? current.password
      : randomBytes(18).toString('base64url')
  const conn = await admin.getConnection()
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    await conn.query(`CREATE USER IF NOT EXISTS '${user}'@'%' IDENTIFIED BY ?`, [password])
    await conn.query(`ALTER USER '${user}'@'%' IDENTIFIED BY ?`, [password])
    await conn.query(`GRANT SELECT ON \`${database}\`.* TO '${user}'@'%'`)
    const { seeded, counts } = await seedDemoDatabase(conn, database, e.seed, e.short)
    const url = `mysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${server.host}:${server.port}/${database}`
    return { url, env: { key: e.key, database, user, production: e.key === 'production', seeded, rows: counts } }
  } finally {
    conn.release()
  }
}

async function ensureEnvironment (ctx: Context, workspaceId: string, key: string, url: string): Promise<void> {
  const existing = await ctx.repos.environments.get(workspaceId, key)
  if (existing === undefined) {
    await ctx.services.environments.create({ workspaceId, key, dataSourceUrl: url })
    return
  }
  const current = ctx.services.environments.openDataSource(existing)
  const target = new URL(url)
  const same = current !== null && current.host === target.hostname && current.port === Number(target.port) &&
    current.user === decodeURIComponent(target.username) && current.password === decodeURIComponent(target.password) &&
    current.database === target.pathname.slice(1)
  if (!same) await ctx.services.environments.setDataSource(workspaceId, key, url)
}

/** Publishes each example template unless the current published version is the same file. */
async function publishExamples (ctx: Context, workspaceId: string): Promise<DemoTemplate[]> {
  const dir = join(examplesDir, 'templates')
  const out: DemoTemplate[] = []
  for (const name of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    const file = JSON.parse(await readFile(join(dir, name), 'utf8')) as { code: string }
    try {
      const current = await ctx.resolver.resolve(workspaceId, file.code)
      if (isDeepStrictEqual(JSON.parse(current.definitionJson), file)) {
        out.push({ code: file.code, version: current.version, published: false })
        continue
      }
    } catch (err) {
      if (!isProblem(err) || !['TEMPLATE_NOT_FOUND', 'TEMPLATE_NOT_PUBLISHED', 'TEMPLATE_DISABLED'].includes(err.code)) throw err
      if (err.code === 'TEMPLATE_DISABLED') await ctx.services.templates.setDisabled(workspaceId, file.code, false)
    }
    const published = await ctx.services.templates.publish(workspaceId, file, { note: 'svc demo', publishedBy: 'svc demo' })
    out.push({ code: published.code, version: published.version, published: true })
  }
  return out
}

export async function runDemo (ctx: Context, options: DemoOptions): Promise<DemoResult> {
  const prefix = options.prefix ?? 'demo'
  if (!NAME.test(prefix)) {
    throw new Error('demo prefix: lowercase letters, digits and _ (max 41), starting with a letter')
  }
  const workspace = await findWorkspace(ctx, options.home)
  await mkdir(options.home, { recursive: true })
  await writeFile(join(options.home, 'demo.json'), JSON.stringify({ workspaceId: workspace.id, prefix }, null, 2) + '\n', { mode: 0o600 })
  const environments: DemoEnvironment[] = []
  for (const e of DEMO_ENVIRONMENTS) {
    const { url, env } = await prepareDatabase(ctx, options.admin, workspace.id, prefix, e)
    await ensureEnvironment(ctx, workspace.id, e.key, url)
    environments.push(env)
  }
  const templates = await publishExamples(ctx, workspace.id)
  const scopes = [...SCOPES]
  const live = await ctx.services.apiKeys.create({ workspaceId: workspace.id, name: 'Demo live key', mode: 'live', scopes, expiresAt: null })
  const test = await ctx.services.apiKeys.create({ workspaceId: workspace.id, name: 'Demo test key', mode: 'test', scopes, expiresAt: null })
  return { workspace, environments, templates, keys: { live, test }, rerun: !workspace.created }
}
