// Configuration is read once, here, from the environment (CLI flags override by passing
// `overrides`), validated, and handed down as one frozen object. Nothing else reads process.env.
import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { parseDuration } from './util/duration.js'
import { parseRules } from './net/destination-policy.js'
import type { DestinationPolicy } from './net/destination-policy.js'

export interface Config {
  /** State folder: private database, TLS certificate, master key. */
  home: string
  /** mysql:// URL of the service database; undefined = the private instance in `home`. */
  databaseUrl: string | undefined
  /** Port of the private MariaDB instance on 127.0.0.1. */
  dbPort: number
  host: string
  port: number
  /** Absolute base URL used in statusUrl/documentUrl; derived from host/port when unset. */
  publicUrl: string | undefined
  tlsCert: string | undefined
  tlsKey: string | undefined
  /** 32-byte key for secrets at rest; undefined = generated into `home`. */
  masterKey: string | undefined
  /** SVC_MASTER_KEYS: 64-hex keys, the first seals, all open (key rotation). */
  masterKeys: string[] | undefined
  logLevel: string
  logFile: string | undefined
  /** Default requests per 60 s per key; 0 = keys without a limit of their own are not limited. */
  rateLimit: { perMinute: number }
  /** The admin listener (GET /metrics): plain HTTP, loopback by default. */
  admin: { host: string, port: number }
  bodyLimitBytes: number
  /** What one connection or request may cost (see server/http/server-limits.ts). */
  http: {
    requestTimeoutMs: number
    headersTimeoutMs: number
    keepAliveTimeoutMs: number
    /** After its last answer, a connection drops what the peer still sends up to this (http/graceful-close.ts). */
    linger: { bytes: number, ms: number }
    connectionTimeoutMs: number
    maxRequestsPerSocket: number
    maxConnections: number
    /** Failed authentications per minute per client address before 429. */
    authFailuresPerMinute: number
    /** Balancer addresses whose connections start with a PROXY protocol header (http/proxy-protocol.ts). */
    proxyProtocolFrom: string[]
  }
  render: {
    threads: number
    maxQueue: number
    /** Sync renders of one workspace on a thread at once. */
    workspaceRunning: number
    /** A workspace takes the last free thread only when no other asked for one within this (fair threads). */
    fairWindowMs: number
    /** Sync renders of one workspace waiting for a thread. */
    workspaceQueue: number
    timeoutMs: number
    maxPages: number
    maxBytes: number
    maxRows: number
    maxLabels: number
    /** Output held whole up to this (Content-Length, one row); past it streamed (see render/output.ts). */
    streamAboveBytes: number
    /** A `multiple` dataset past this many rows is fed to the worker in batches as it is read. */
    feedRowsAbove: number
  }
  jobs: {
    enabled: boolean
    concurrency: number
    leaseMs: number
    maxAttempts: number
    pollMs: number
    /** Fair share: running jobs of one workspace (over all processes) and queued jobs it may hold. */
    maxRunningPerWorkspace: number
    maxQueuedPerWorkspace: number
  }
  documents: {
    linkTtlMs: number
    ttlMs: number
    sweepMs: number
    /** A pending document older than this has a dead writer: the sweep deletes it (derived, see loadConfig). */
    pendingMaxAgeMs: number
    /** Storage quota: stored document bytes of one workspace, and of all together. */
    workspaceQuotaBytes: number
    totalQuotaBytes: number
  }
  datasources: {
    connectTimeoutMs: number
    queryTimeoutMs: number
    maxPools: number
    poolSize: number
    /** A pooled connection unused this long is closed (≥ 100 ms, ≤ 1 h). */
    idleTimeoutMs: number
    /** Bytes all datasets of one render may read together (what the data source sends, plus a cost per cell). */
    maxBytes: number
    /** The same for one dataset execution, whose answer is serialised whole. */
    executeMaxBytes: number
    /** Bytes of one value (one cell); a row packet that could not hold only such values is cut at its header. */
    maxCellBytes: number
    /** Where data sources may connect (SVC_DATASOURCE_ALLOW / SVC_DATASOURCE_DENY over the default refusals). */
    policy: DestinationPolicy
  }
  webhooks: {
    enabled: boolean
    retrySchedule: number[]
    timeoutMs: number
    allowPrivate: boolean
    caFile: string | undefined
    pollMs: number
    concurrency: number
    /** Sends to one endpoint in flight at once per process (fair share of `concurrency`). */
    maxInFlightPerEndpoint: number
  }
}

export class ConfigError extends Error {
  constructor (readonly variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

/** Added to the longest time a pending document may be written before the sweep takes it (see pendingMaxAgeMs). */
const PENDING_MARGIN_MS = 5 * 60_000
const MiB = 1024 * 1024
const GiB = 1024 * MiB

function str (env: Env, name: string, fallback?: string): string | undefined {
  const value = env[name]
  return value === undefined || value === '' ? fallback : value
}

function int (env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = str(env, name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
  return value
}

function duration (env: Env, name: string, fallback: string): number {
  const raw = str(env, name, fallback) as string
  const value = parseDuration(raw)
  if (value === undefined) {
    throw new ConfigError(name, 'expected a duration such as 500ms, 30s, 5m, 2h or 1d, ' +
    `got "${raw}"`)
  }
  return value
}

function bool (env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)
  if (raw === undefined) return fallback
  if (/^(1|true|yes|on)$/i.test(raw)) return true
  if (/^(0|false|no|off)$/i.test(raw)) return false
  throw new ConfigError(name, `expected true or false, got "${raw}"`)
}

function durations (env: Env, name: string, fallback: string): number[] {
  const raw = str(env, name, fallback) as string
  return raw.split(',').map((part) => {
    const value = parseDuration(part)
    if (value === undefined) throw new ConfigError(name, `expected comma-separated durations, got "${part}"`)
    return value
  })
}

function rules (env: Env, name: string): DestinationPolicy['allow'] {
  const parsed = parseRules(str(env, name))
  if (typeof parsed === 'string') throw new ConfigError(name, parsed)
  return parsed
}

/** Every variable with its default, for the README and `svc config`. */
export const CONFIG_DEFAULTS = {
  SVC_HOME: './.svc',
  SVC_DATABASE_URL: '(private MariaDB in SVC_HOME)',
  SVC_DB_PORT: '3307',
  SVC_HOST: '127.0.0.1',
  SVC_PORT: '8443',
  SVC_PUBLIC_URL: 'https://<SVC_HOST>:<SVC_PORT>',
  SVC_TLS_CERT: '(self-signed, generated into SVC_HOME/tls)',
  SVC_TLS_KEY: '(self-signed, generated into SVC_HOME/tls)',
  SVC_MASTER_KEY: '(generated into SVC_HOME/master.key)',
  SVC_MASTER_KEYS: '(SVC_HOME/master-keys when present)',
  SVC_LOG_LEVEL: 'info',
  SVC_LOG_FILE: '(stdout)',
  SVC_RATE_LIMIT: '600',
  SVC_ADMIN_HOST: '127.0.0.1',
  SVC_ADMIN_PORT: '9464',
  SVC_BODY_LIMIT: '1048576',
  SVC_REQUEST_TIMEOUT: '30s',
  SVC_HEADERS_TIMEOUT: '10s',
  SVC_KEEP_ALIVE_TIMEOUT: '5s',
  SVC_LINGER_BYTES: '67108864',
  SVC_LINGER_TIMEOUT: '5s',
  SVC_CONNECTION_TIMEOUT: '(2m, at least 2 × SVC_RENDER_TIMEOUT)',
  SVC_MAX_REQUESTS_PER_SOCKET: '10000',
  SVC_MAX_CONNECTIONS: '4096',
  SVC_AUTH_FAILURE_LIMIT: '30',
  SVC_PROXY_PROTOCOL_FROM: '(none)',
  SVC_RENDER_THREADS: '(cores)',
  SVC_RENDER_QUEUE: '256',
  SVC_RENDER_WORKSPACE_RUNNING: '(SVC_RENDER_THREADS)',
  SVC_RENDER_WORKSPACE_QUEUE: '(SVC_RENDER_QUEUE ÷ 4)',
  SVC_RENDER_FAIR_WINDOW: '10s',
  SVC_RENDER_TIMEOUT: '30s',
  SVC_RENDER_MAX_PAGES: '20000',
  SVC_RENDER_MAX_BYTES: '52428800',
  SVC_RENDER_MAX_ROWS: '100000',
  SVC_RENDER_MAX_LABELS: '20000',
  SVC_RENDER_STREAM_ABOVE: '1048576',
  SVC_DATASET_FEED_ABOVE: '5000',
  SVC_JOBS: 'true',
  SVC_JOB_CONCURRENCY: '(16 × SVC_RENDER_THREADS)',
  SVC_JOB_LEASE: '30s',
  SVC_JOB_MAX_ATTEMPTS: '3',
  SVC_JOB_POLL: '250ms',
  SVC_JOB_MAX_RUNNING_PER_WORKSPACE: '(3/4 × SVC_JOB_CONCURRENCY)',
  SVC_JOB_MAX_QUEUED_PER_WORKSPACE: '10000',
  SVC_DOCUMENT_LINK_TTL: '15m',
  SVC_DOCUMENT_TTL: '24h',
  SVC_DOCUMENT_SWEEP: '1m',
  SVC_DOCUMENT_WORKSPACE_QUOTA: '1073741824',
  SVC_DOCUMENT_TOTAL_QUOTA: '10737418240',
  SVC_DATASOURCE_CONNECT_TIMEOUT: '5s',
  SVC_DATASOURCE_QUERY_TIMEOUT: '30s',
  SVC_DATASOURCE_MAX_POOLS: '64',
  SVC_DATASOURCE_POOL_SIZE: '4',
  SVC_DATASOURCE_IDLE_TIMEOUT: '30s',
  SVC_DATASET_MAX_BYTES: '12582912',
  SVC_DATASET_EXECUTE_MAX_BYTES: '4194304',
  SVC_DATASET_MAX_CELL_BYTES: '4194304',
  SVC_DATASOURCE_ALLOW: '(none: loopback, link-local, metadata, unspecified, multicast refused)',
  SVC_DATASOURCE_DENY: '(none)',
  SVC_WEBHOOKS: 'true',
  SVC_WEBHOOK_RETRY_SCHEDULE: '1m,5m,30m,2h,12h',
  SVC_WEBHOOK_TIMEOUT: '5s',
  SVC_WEBHOOKS_ALLOW_PRIVATE: 'false',
  SVC_WEBHOOK_CA_FILE: '(system CAs)',
  SVC_WEBHOOK_POLL: '500ms',
  SVC_WEBHOOK_CONCURRENCY: '64',
  SVC_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '(SVC_WEBHOOK_CONCURRENCY / 4)'
} as const

export function loadConfig (env: Env = process.env, overrides: Partial<Env> = {}, cores = 2): Config {
  const e: Env = { ...env, ...overrides }
  const home = resolve(str(e, 'SVC_HOME', './.svc') as string)
  const databaseUrl = str(e, 'SVC_DATABASE_URL')
  if (databaseUrl !== undefined && !/^mysql:\/\//.test(databaseUrl)) {
    throw new ConfigError('SVC_DATABASE_URL', 'expected mysql://user:password@host:port/database')
  }
  const publicUrl = str(e, 'SVC_PUBLIC_URL')
  if (publicUrl !== undefined && !/^https:\/\/[^/]+$/.test(publicUrl.replace(/\/$/, ''))) {
    throw new ConfigError('SVC_PUBLIC_URL', 'expected https://host[:port] without a path')
  }
  const tlsCert = str(e, 'SVC_TLS_CERT')
  const tlsKey = str(e, 'SVC_TLS_KEY')
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError(tlsCert === undefined ? 'SVC_TLS_CERT' : 'SVC_TLS_KEY', 'SVC_TLS_CERT and SVC_TLS_KEY go ' +
      'together')
  }
  const masterKey = str(e, 'SVC_MASTER_KEY')
  if (masterKey !== undefined && !/^[0-9a-fA-F]{64}$/.test(masterKey)) {
    throw new ConfigError('SVC_MASTER_KEY', 'expected 64 hex characters (32 bytes)')
  }
  const masterKeys = str(e, 'SVC_MASTER_KEYS')?.split(',').map((k) => k.trim()).filter(Boolean)
  if (masterKeys !== undefined && (masterKeys.length === 0 || !masterKeys.every((k) => /^[0-9a-fA-F]{64}$/.test(k)))) {
    throw new ConfigError('SVC_MASTER_KEYS', 'expected comma-separated keys of 64 hex characters, ' +
      'the sealing key first')
  }
  if (masterKeys !== undefined && new Set(masterKeys.map((k) => k.toLowerCase())).size !== masterKeys.length) {
    throw new ConfigError('SVC_MASTER_KEYS', 'a key is listed twice')
  }
  const linkTtlMs = duration(e, 'SVC_DOCUMENT_LINK_TTL', '15m')
  const ttlMs = duration(e, 'SVC_DOCUMENT_TTL', '24h')
  if (linkTtlMs >= ttlMs) throw new ConfigError('SVC_DOCUMENT_LINK_TTL', 'must be shorter than SVC_DOCUMENT_TTL')
  const retrySchedule = durations(e, 'SVC_WEBHOOK_RETRY_SCHEDULE', '1m,5m,30m,2h,12h')
  const level = str(e, 'SVC_LOG_LEVEL', 'info') as string
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
    throw new ConfigError('SVC_LOG_LEVEL', `expected fatal, error, warn, info, debug, trace or silent, got "${level}"`)
  }
  // Jobs spend most of their time waiting on databases, so several per render thread keep the
  // threads busy; the pool's own queue bounds what actually waits for a thread.
  const threads = int(e, 'SVC_RENDER_THREADS', cores, 1, 256)
  const requestTimeoutMs = duration(e, 'SVC_REQUEST_TIMEOUT', '30s')
  const headersTimeoutMs = duration(e, 'SVC_HEADERS_TIMEOUT', '10s')
  // Node refuses a header timeout longer than the request timeout (the headers are part of it).
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('SVC_HEADERS_TIMEOUT', 'must not exceed SVC_REQUEST_TIMEOUT')
  const proxyProtocolFrom = (str(e, 'SVC_PROXY_PROTOCOL_FROM') ?? '').split(',').map((a) => a.trim()).filter(Boolean)
  const notAnAddress = proxyProtocolFrom.find((a) => isIP(a) === 0)
  if (notAnAddress !== undefined) throw new ConfigError('SVC_PROXY_PROTOCOL_FROM', `"${notAnAddress}" is not an IP address`)
  const renderTimeoutMs = duration(e, 'SVC_RENDER_TIMEOUT', '30s')
  // The idle timeout also runs while a sync render works: it must outlast one (unset: at least
  // twice the render timeout).
  const connectionTimeoutMs = str(e, 'SVC_CONNECTION_TIMEOUT') === undefined
    ? Math.max(120_000, 2 * renderTimeoutMs)
    : duration(e, 'SVC_CONNECTION_TIMEOUT', '2m')
  if (connectionTimeoutMs <= renderTimeoutMs) {
    throw new ConfigError('SVC_CONNECTION_TIMEOUT', 'must be longer than SVC_RENDER_TIMEOUT')
  }
  const renderQueue = int(e, 'SVC_RENDER_QUEUE', 256, 0)
  const webhookConcurrency = int(e, 'SVC_WEBHOOK_CONCURRENCY', 64, 1, 1024)
  const jobConcurrency = int(e, 'SVC_JOB_CONCURRENCY', threads * 16, 1, 1024)
  const dsIdleTimeoutMs = duration(e, 'SVC_DATASOURCE_IDLE_TIMEOUT', '30s')
  if (dsIdleTimeoutMs < 100 || dsIdleTimeoutMs > 3_600_000) throw new ConfigError('SVC_DATASOURCE_IDLE_TIMEOUT', 'must be between 100ms and 1h')
  const jobLeaseMs = duration(e, 'SVC_JOB_LEASE', '30s')
  const config: Config = {
    home,
    databaseUrl,
    dbPort: int(e, 'SVC_DB_PORT', 3307, 1, 65535),
    host: str(e, 'SVC_HOST', '127.0.0.1') as string,
    port: int(e, 'SVC_PORT', 8443, 0, 65535),
    publicUrl: publicUrl?.replace(/\/$/, ''),
    tlsCert,
    tlsKey,
    masterKey,
    masterKeys,
    logLevel: level,
    logFile: str(e, 'SVC_LOG_FILE'),
    rateLimit: { perMinute: int(e, 'SVC_RATE_LIMIT', 600, 0) },
    admin: { host: str(e, 'SVC_ADMIN_HOST', '127.0.0.1') as string, port: int(e, 'SVC_ADMIN_PORT', 9464, 0, 65535) },
    bodyLimitBytes: int(e, 'SVC_BODY_LIMIT', 1_048_576, 1024),
    http: {
      requestTimeoutMs,
      headersTimeoutMs,
      keepAliveTimeoutMs: duration(e, 'SVC_KEEP_ALIVE_TIMEOUT', '5s'),
      linger: { bytes: int(e, 'SVC_LINGER_BYTES', 67_108_864), ms: duration(e, 'SVC_LINGER_TIMEOUT', '5s') },
      connectionTimeoutMs,
      maxRequestsPerSocket: int(e, 'SVC_MAX_REQUESTS_PER_SOCKET', 10_000, 1),
      maxConnections: int(e, 'SVC_MAX_CONNECTIONS', 4096, 1),
      authFailuresPerMinute: int(e, 'SVC_AUTH_FAILURE_LIMIT', 30, 1),
      proxyProtocolFrom
    },
    render: {
      threads,
      maxQueue: renderQueue,
      workspaceRunning: int(e, 'SVC_RENDER_WORKSPACE_RUNNING', threads, 1, 256),
      workspaceQueue: int(e, 'SVC_RENDER_WORKSPACE_QUEUE', Math.ceil(renderQueue / 4), 0),
      fairWindowMs: duration(e, 'SVC_RENDER_FAIR_WINDOW', '10s'),
      timeoutMs: renderTimeoutMs,
      maxPages: int(e, 'SVC_RENDER_MAX_PAGES', 20_000, 1),
      // The INT columns that record a document's size (documents.bytes, output_bytes) bound it.
      maxBytes: int(e, 'SVC_RENDER_MAX_BYTES', 50 * 1024 * 1024, 1024, 2_147_483_647),
      maxRows: int(e, 'SVC_RENDER_MAX_ROWS', 100_000, 1),
      maxLabels: int(e, 'SVC_RENDER_MAX_LABELS', 20_000, 1),
      streamAboveBytes: int(e, 'SVC_RENDER_STREAM_ABOVE', 1024 * 1024, 0, 64 * 1024 * 1024),
      feedRowsAbove: int(e, 'SVC_DATASET_FEED_ABOVE', 5000, 0)
    },
    jobs: {
      enabled: bool(e, 'SVC_JOBS', true),
      concurrency: jobConcurrency,
      leaseMs: jobLeaseMs,
      maxAttempts: int(e, 'SVC_JOB_MAX_ATTEMPTS', 3, 1, 100),
      pollMs: duration(e, 'SVC_JOB_POLL', '250ms'),
      // A quarter of the slots always stay free for other workspaces' jobs.
      maxRunningPerWorkspace: int(e, 'SVC_JOB_MAX_RUNNING_PER_WORKSPACE', Math.max(1, Math.floor(jobConcurrency * 3 / 4)), 1, 1_000_000),
      maxQueuedPerWorkspace: int(e, 'SVC_JOB_MAX_QUEUED_PER_WORKSPACE', 10_000, 1, 100_000_000)
    },
    documents: {
      linkTtlMs,
      ttlMs,
      sweepMs: duration(e, 'SVC_DOCUMENT_SWEEP', '1m'),
      // A pending document is written from its first chunk to the end of its render, which the
      // render timeout bounds (waiting for the reader included); then its last chunk and the
      // commit. A job's writes are fenced on its claim, which a process stalled past its lease
      // has lost; the rest of the margin covers the last statements of a slow database. Older
      // than this, no live process on any node can still write or commit it.
      pendingMaxAgeMs: renderTimeoutMs + jobLeaseMs + PENDING_MARGIN_MS,
      workspaceQuotaBytes: int(e, 'SVC_DOCUMENT_WORKSPACE_QUOTA', 1024 ** 3, 1024 * 1024),
      totalQuotaBytes: int(e, 'SVC_DOCUMENT_TOTAL_QUOTA', 10 * 1024 ** 3, 1024 * 1024)
    },
    datasources: {
      connectTimeoutMs: duration(e, 'SVC_DATASOURCE_CONNECT_TIMEOUT', '5s'),
      queryTimeoutMs: duration(e, 'SVC_DATASOURCE_QUERY_TIMEOUT', '30s'),
      maxPools: int(e, 'SVC_DATASOURCE_MAX_POOLS', 64, 1),
      poolSize: int(e, 'SVC_DATASOURCE_POOL_SIZE', 4, 1, 100),
      idleTimeoutMs: dsIdleTimeoutMs,
      // Up to 1 GiB: a value past V8's string limit (~512 M characters) could not be held anyway.
      maxBytes: int(e, 'SVC_DATASET_MAX_BYTES', 12 * MiB, 64 * 1024, GiB),
      executeMaxBytes: int(e, 'SVC_DATASET_EXECUTE_MAX_BYTES', 4 * MiB, 64 * 1024, GiB),
      maxCellBytes: int(e, 'SVC_DATASET_MAX_CELL_BYTES', 4 * MiB, 1024, GiB),
      policy: { allow: rules(e, 'SVC_DATASOURCE_ALLOW'), deny: rules(e, 'SVC_DATASOURCE_DENY') }
    },
    webhooks: {
      enabled: bool(e, 'SVC_WEBHOOKS', true),
      retrySchedule,
      timeoutMs: duration(e, 'SVC_WEBHOOK_TIMEOUT', '5s'),
      allowPrivate: bool(e, 'SVC_WEBHOOKS_ALLOW_PRIVATE', false),
      caFile: str(e, 'SVC_WEBHOOK_CA_FILE'),
      pollMs: duration(e, 'SVC_WEBHOOK_POLL', '500ms'),
      concurrency: webhookConcurrency,
      maxInFlightPerEndpoint: int(e, 'SVC_WEBHOOK_MAX_IN_FLIGHT_PER_' +
        'ENDPOINT', Math.max(1, Math.floor(webhookConcurrency / 4)), 1, 1024)
    }
  }
  return Object.freeze(config)
}
