// What one connection or request may cost, from Config.http: Fastify's own options, the Node
// server options only its constructor takes, and the connection cap. Protocol errors these
// limits raise are answered by client-errors.ts.
import type { Server } from 'node:http'
import type { Config } from '../config.js'
import { clientErrorHandler } from './client-errors.js'

export function fastifyLimits (config: Config) {
  return {
    requestTimeout: config.http.requestTimeoutMs,
    connectionTimeout: config.http.connectionTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.http.maxRequestsPerSocket,
    clientErrorHandler
  }
}

/** Passed to https.createServer with the certificate (Fastify forwards that object). */
export function nodeServerLimits (config: Config): { headersTimeout: number, connectionsCheckingInterval: number } {
  const shortest = Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs)
  // Node checks the two timeouts on this interval (default 30 s): a tenth of the shorter one,
  // so a timeout fires within ~10% of its value.
  return {
    headersTimeout: config.http.headersTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(shortest / 10)))
  }
}

export function capConnections (server: Server, config: Config): void {
  // Beyond the cap Node closes new connections at once; established ones keep being served.
  server.maxConnections = config.http.maxConnections
  server.headersTimeout = config.http.headersTimeoutMs
}
