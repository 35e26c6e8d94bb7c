// The URL the OpenAPI document names as its server.
import type { Config } from '../config.js'

/** The URL clients reach this service at: SVC_PUBLIC_URL, else the bound address (as server/main.ts). */
export function serviceUrl (config: Pick<Config, 'publicUrl' | 'host' | 'port'>, bound: unknown): string {
  if (config.publicUrl !== undefined) return config.publicUrl
  const port = typeof bound === 'object' && bound !== null && 'port' in bound ? Number(bound.port) : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  return `https://${host}:${port}`
}
