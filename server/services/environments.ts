// Environments and their data sources. The data-source password is sealed with the master key,
// bound to its row (server/secrets); listing never shows it, and only the data-source pool opens it.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { problem } from '../errors.js'
import { SealedValueError } from '../secrets/keyring.js'
import type { Keyring, SealedRef } from '../secrets/keyring.js'
import type { EnvironmentsRepo, Environment, DataSourceRow } from '../store/repos/environments.js'
import type { WorkspacesRepo } from '../store/repos/workspaces.js'
import { AddressRefused } from '../net/address-guard.js'
import { isDpi } from '../../engine/zpl/dpi.js'
import type { DataSourceGuard } from '../datasources/destinations.js'
import type { DataSourceConfig, DataSourceOpener } from '../datasources/source.js'

export interface EnvironmentView {
  id: string
  workspaceId: string
  key: string
  production: boolean
  dataSource: { host: string, port: number, user: string, database: string } | null
  /** Default printer resolution of labels rendered here; null: each template's own. */
  labelDpi: number | null
  createdAt: string
}

const ENV_KEY = /^[a-z][a-z0-9_-]{0,63}$/

export function parseDataSourceUrl (url: string): DataSourceConfig {
  let u: URL
  try { u = new URL(url) } catch { u = new URL('invalid:') }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''))
  if (u.protocol !== 'mysql:' || u.hostname === '' || database === '' || u.username === '') {
    throw problem('VALIDATION_FAILED', 'datasource: expected mysql://user:password@host:port/database',
      { errors: { datasource: ['expected mysql://user:password@host:port/database'] } })
  }
  return { host: u.hostname, port: u.port === '' ? 3306 : Number(u.port), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), database }
}

function view (e: Environment): EnvironmentView {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    key: e.key,
    production: e.isProduction,
    labelDpi: e.labelDpi ?? null,
    dataSource:
      e.dataSource === null
        ? null
        : {
            host: e.dataSource.host,
            port: e.dataSource.port,
            user: e.dataSource.user,
            database: e.dataSource.database
          },
    createdAt: e.createdAt.toISOString()
  }
}

/** The one place ENVIRONMENT_NOT_FOUND is raised: renders, jobs, dataset runs and the admin CLI. */
export function requireEnvironment<E> (key: string, env: E | undefined): E {
  if (env === undefined) throw problem('ENVIRONMENT_NOT_FOUND', `No environment "${key}" in this workspace`)
  return env
}

/** The password column's place, the associated data of its sealed value. */
export const passwordRef = (environmentId: string): SealedRef =>
  ({ table: 'environments', column: 'ds_password_enc', id: environmentId })

/** Parses a data-source URL and checks its destination against the policy (400 naming the rule and address). */
async function checkedDataSource (
  url: string | null | undefined,
  guard: DataSourceGuard
): Promise<DataSourceConfig | null> {
  if (url === undefined || url === null) return null
  const ds = parseDataSourceUrl(url)
  try {
    await guard.check(ds)
  } catch (err) {
    // A name with no answer yet (DNS not set up) is kept: the pool checks it again when it opens.
    if (!(err instanceof AddressRefused)) throw err
    if (err.unresolved) return ds
    const message = `refused: ${err.message}`
    throw problem('VALIDATION_FAILED', `datasource: ${message}`, { errors: { datasource: [message] } })
  }
  return ds
}

export interface EnvironmentsService extends DataSourceOpener {
  /** `production` defaults to true for the key `production` (Part 5.4 refuses it to test keys). */
  create(input: {
    workspaceId: string
    key: string
    dataSourceUrl?: string
    production?: boolean
  }): Promise<EnvironmentView>
  setDataSource(workspaceId: string, key: string, dataSourceUrl: string | null): Promise<EnvironmentView>
  /** The default label resolution (152, 203, 300, 600; null: each template's own). */
  setLabelDpi(workspaceId: string, key: string, dpi: number | null): Promise<EnvironmentView>
  list(workspaceId: string): Promise<EnvironmentView[]>
}

export function createEnvironmentsService (envs: EnvironmentsRepo, workspaces: WorkspacesRepo, box: Keyring,
  guard: DataSourceGuard, logger?: Logger): EnvironmentsService {
  const seal = (id: string, ds: DataSourceConfig | null): DataSourceRow | null =>
    ds === null
      ? null
      : {
          host: ds.host,
          port: ds.port,
          user: ds.user,
          database: ds.database,
          passwordEnc: box.seal(ds.password, passwordRef(id))
        }
  return {
    async create (input: {
      workspaceId: string
      key: string
      dataSourceUrl?: string
      production?: boolean
    }): Promise<EnvironmentView> {
      if (!ENV_KEY.test(input.key)) {
        throw problem('VALIDATION_FAILED', 'key: expected lowercase letters, digits, - or _ (max 64)', {
          errors: { key: ['expected lowercase letters, digits, - or _ (max 64)'] }
        })
      }
      if ((await workspaces.get(input.workspaceId)) === undefined) { throw problem('WORKSPACE_NOT_FOUND', `no workspace ${input.workspaceId}`) }
      if ((await envs.get(input.workspaceId, input.key)) !== undefined) { throw problem('CONFLICT', `environment ${input.key} exists already`) }
      const ds = await checkedDataSource(input.dataSourceUrl, guard)
      const id = randomUUID()
      return view(
        await envs.create(
          input.workspaceId,
          input.key,
          input.production ?? input.key === 'production',
          seal(id, ds),
          id
        )
      )
    },
    async setDataSource (workspaceId: string, key: string, dataSourceUrl: string | null): Promise<EnvironmentView> {
      const env = requireEnvironment(key, await envs.get(workspaceId, key))
      await envs.setDataSource(env, seal(env.id, await checkedDataSource(dataSourceUrl, guard)))
      return view((await envs.get(workspaceId, key)) as Environment)
    },
    async setLabelDpi (workspaceId: string, key: string, dpi: number | null): Promise<EnvironmentView> {
      if (dpi !== null && !isDpi(dpi)) {
        throw problem('VALIDATION_FAILED', 'labelDpi: must be 152, 203, 300 or 600', { errors: { labelDpi: ['must be 152, 203, 300 or 600'] } })
      }
      const env = requireEnvironment(key, await envs.get(workspaceId, key))
      await envs.setLabelDpi(env, dpi)
      return view((await envs.get(workspaceId, key)) as Environment)
    },
    async list (workspaceId: string): Promise<EnvironmentView[]> {
      if ((await workspaces.get(workspaceId)) === undefined) { throw problem('WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`) }
      return (await envs.list(workspaceId)).map(view)
    },
    /** For the data-source pool only: the connection with its password opened. */
    openDataSource (env: Environment): DataSourceConfig | null {
      const ds = env.dataSource
      if (ds === null) return null
      let password = ''
      try {
        if (ds.passwordEnc !== null) password = box.open(ds.passwordEnc, passwordRef(env.id))
      } catch (err) {
        // Moved from another row, altered, or sealed under a key no longer configured: the
        // dataset fails as DATA_SOURCE_UNAVAILABLE (code SECRET_UNREADABLE) and the operator
        // reads why here. The message names the row and the key id, never the value.
        if (err instanceof SealedValueError) {
          logger?.error({ environment: env.key, workspace: env.workspaceId, keyId: err.keyId }, err.message)
        }
        throw err
      }
      return { host: ds.host, port: ds.port, user: ds.user, database: ds.database, password }
    }
  }
}
