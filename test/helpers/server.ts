// A real HTTPS server on port 0 over a real database, and a client that trusts its
// self-signed certificate. Used by every end-to-end test.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'undici'
import pino from 'pino'
import type { Logger } from 'pino'
import { loadConfig } from '../../server/config.js'
import type { Config } from '../../server/config.js'
import type { Context } from '../../server/context.js'
import { createServer } from '../../server/main.js'
import type { Server } from '../../server/main.js'
import type { FastifyInstance } from 'fastify'
import { testDataSourceAllow } from './db.js'

export interface TestServer {
  url: string
  config: Config
  context: Context
  app: FastifyInstance
  server: Server
  agent: Agent
  ca: Buffer
  fetch (
    method: string,
    path: string,
    options?: { headers?: Record<string, string>, body?: unknown, rawBody?: string }
  ): Promise<TestResponse>
  close (): Promise<void>
}

export interface TestResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  // Parsed JSON under test: the assertions check its shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json (): any
  text (): string
}

export async function makeHome (): Promise<string> {
  return await mkdtemp(join(tmpdir(), 'svc-test-'))
}

/**
 * Starts a server on `databaseUrl`; `env` overrides config variables (SVC_RATE_LIMIT …); `logger` replaces the silent
 * one (logging tests).
 */
export async function startServer (
  databaseUrl: string,
  env: Record<string, string> = {},
  home?: string,
  extend?: (api: FastifyInstance) => void,
  options: { logger?: Logger } = {}
): Promise<TestServer> {
  const ownHome = home === undefined
  const dir = home ?? (await makeHome())
  const config = loadConfig(
    {},
    {
      SVC_HOME: dir,
      SVC_DATABASE_URL: databaseUrl,
      SVC_PORT: '0',
      SVC_MASTER_KEY: process.env.SVC_TEST_MASTER_KEY ?? randomBytes(32).toString('hex'),
      SVC_LOG_LEVEL: process.env.SVC_TEST_LOG_LEVEL ?? 'silent',
      SVC_RENDER_THREADS: '2',
      SVC_DATASOURCE_ALLOW: testDataSourceAllow(),
      ...env
    },
    2
  )
  const logger = options.logger ?? pino({ level: config.logLevel })
  // The same composition root as `svc serve` (the test database is migrated already).
  const server = await createServer(config, { logger, extend })
  const url = await server.listen({ host: '127.0.0.1', port: 0 })
  const agent = new Agent({ connect: { ca: server.tls.cert } })
  return {
    url,
    config,
    context: server.context,
    app: server.app,
    server,
    agent,
    ca: server.tls.cert,
    async fetch (method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers }
      let body: string | undefined
      if (options.rawBody !== undefined) body = options.rawBody
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body)
        headers['content-type'] ??= 'application/json'
      }
      const res = await request(url + path, { method: method as 'GET', headers, body, dispatcher: agent })
      const buf = Buffer.from(await res.body.arrayBuffer())
      return {
        status: res.statusCode,
        headers: res.headers,
        body: buf,
        json: () => JSON.parse(buf.toString('utf8')),
        text: () => buf.toString('utf8')
      }
    },
    async close () {
      await server.close()
      await agent.close()
      if (ownHome) await rm(dir, { recursive: true, force: true })
    }
  }
}
