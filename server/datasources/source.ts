// What the data-source pools need of an environment: its connection, the password unsealed.
// Declared here and implemented by services/environments.ts (which holds the master keys), so
// datasources/ depends on this interface and not on the service.
import type { Environment } from '../store/repos/environments.js'

/** A data source's connection, its password in clear (only ever in memory). */
export interface DataSourceConfig { host: string, port: number, user: string, password: string, database: string }

export interface DataSourceOpener {
  /** The environment's data source with its password opened; null when it has none. */
  openDataSource: (env: Environment) => DataSourceConfig | null
}
