// The data-source destination check, used when an environment's data source is created or
// changed and again when its pool opens (the pool then connects to the address checked here).
import { checkDestination } from '../net/destination-policy.js'
import { resolveHost, systemResolver } from '../net/address-guard.js'
import type { ResolvedAddress, Resolver } from '../net/address-guard.js'
import type { Config } from '../config.js'
import { parseMysqlUrl } from '../store/db.js'

export interface DataSourceGuard {
  /** The address to connect to; throws AddressRefused naming the rule and the address. */
  check (ds: { host: string, port: number, user: string }): Promise<ResolvedAddress>
}

/** `serviceUrl` is the service database's URL: its endpoint is refused to its own user and root. */
export function createDataSourceGuard (config: Pick<Config, 'datasources'>, serviceUrl: string | undefined, resolver: Resolver = systemResolver): DataSourceGuard {
  const service = serviceUrl === undefined ? undefined : parseMysqlUrl(serviceUrl)
  let own: Promise<ResolvedAddress[]> | undefined
  const endpoint = service === undefined
    ? undefined
    : {
        endpoint: { host: service.host, port: service.port, user: service.user },
        // Resolved once per process; a failed lookup is retried next time.
        addresses: () => (own ??= resolveHost(service.host, resolver).catch((err) => { own = undefined; throw err }))
      }
  return { check: (ds) => checkDestination(ds, config.datasources.policy, resolver, endpoint) }
}
