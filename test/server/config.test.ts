// loadConfig: defaults, durations, validation errors that name their variable, the TTL rule,
// and overrides (CLI flags) winning over the environment.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { resolve } from 'node:path'
import { loadConfig, ConfigError, CONFIG_DEFAULTS } from '../../server/config.js'
import { parseDuration } from '../../server/util/duration.js'

function configError (env: Record<string, string>, variable: string): ConfigError {
  let caught: unknown
  try { loadConfig(env, {}, 2) } catch (err) { caught = err }
  assert.ok(caught instanceof ConfigError, `${JSON.stringify(env)} should be refused`)
  assert.equal(caught.variable, variable, `${JSON.stringify(env)} names ${variable}`)
  assert.ok(caught.message.startsWith(`${variable}: `), caught.message)
  return caught
}

test('defaults without any variable', () => {
  const c = loadConfig({}, {}, 3)
  assert.equal(c.home, resolve('./.svc'))
  assert.equal(c.databaseUrl, undefined)
  assert.equal(c.dbPort, 3307)
  assert.equal(c.host, '127.0.0.1')
  assert.equal(c.port, 8443)
  assert.equal(c.publicUrl, undefined)
  assert.equal(c.masterKey, undefined)
  assert.equal(c.logLevel, 'info')
  assert.equal(c.logFile, undefined)
  assert.equal(c.rateLimit.perMinute, 600)
  assert.equal(c.bodyLimitBytes, 1_048_576)
  assert.deepEqual(c.render, {
    threads: 3,
    maxQueue: 256,
    workspaceRunning: 3,
    workspaceQueue: 64,
    fairWindowMs: 10_000,
    timeoutMs: 30_000,
    maxPages: 20_000,
    maxBytes: 52_428_800,
    maxRows: 100_000,
    maxLabels: 20_000,
    streamAboveBytes: 1024 * 1024,
    feedRowsAbove: 5000
  })
  assert.deepEqual(
    c.jobs,
    {
      enabled: true,
      concurrency: 48,
      leaseMs: 30_000,
      maxAttempts: 3,
      pollMs: 250,
      maxRunningPerWorkspace: 36,
      maxQueuedPerWorkspace: 10_000
    },
    'job concurrency: 16 per render thread; a workspace runs at most 3/4 of it'
  )
  assert.deepEqual(c.documents, {
    linkTtlMs: 15 * 60_000,
    ttlMs: 24 * 3_600_000,
    sweepMs: 60_000,
    pendingMaxAgeMs: 30_000 + 30_000 + 5 * 60_000,
    workspaceQuotaBytes: 1024 ** 3,
    totalQuotaBytes: 10 * 1024 ** 3
  }, 'a pending document is swept after the render timeout, a job lease and a 5 min margin')
  assert.deepEqual(c.datasources, {
    connectTimeoutMs: 5000,
    queryTimeoutMs: 30_000,
    maxPools: 64,
    poolSize: 4,
    idleTimeoutMs: 30_000,
    maxBytes: 12 * 1024 * 1024,
    executeMaxBytes: 4 * 1024 * 1024,
    maxCellBytes: 4 * 1024 * 1024,
    policy: { allow: [], deny: [] }
  })
  assert.deepEqual(c.webhooks.retrySchedule, [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000])
  assert.equal(c.webhooks.enabled, true)
  assert.equal(c.webhooks.allowPrivate, false)
  assert.equal(c.webhooks.timeoutMs, 5000)
  assert.equal(c.webhooks.concurrency, 64)
  assert.equal(String(c.webhooks.concurrency), CONFIG_DEFAULTS.SVC_WEBHOOK_CONCURRENCY)
  assert.equal(c.webhooks.maxInFlightPerEndpoint, 16, 'a quarter of the sender per endpoint')
  assert.equal(loadConfig({ SVC_RENDER_THREADS: '5' }, {}, 3).jobs.concurrency, 80, 'follows SVC_RENDER_THREADS')
  assert.ok(Object.isFrozen(c))
})

test('CONFIG_DEFAULTS agrees with the values loadConfig uses', () => {
  const c = loadConfig({}, {}, 2)
  assert.equal(String(c.port), CONFIG_DEFAULTS.SVC_PORT)
  assert.equal(String(c.dbPort), CONFIG_DEFAULTS.SVC_DB_PORT)
  assert.equal(String(c.rateLimit.perMinute), CONFIG_DEFAULTS.SVC_RATE_LIMIT)
  assert.equal(String(c.admin.port), CONFIG_DEFAULTS.SVC_ADMIN_PORT)
  assert.equal(c.admin.host, CONFIG_DEFAULTS.SVC_ADMIN_HOST)
  assert.equal(String(c.bodyLimitBytes), CONFIG_DEFAULTS.SVC_BODY_LIMIT)
  assert.equal(String(c.render.maxBytes), CONFIG_DEFAULTS.SVC_RENDER_MAX_BYTES)
  assert.equal(String(c.documents.workspaceQuotaBytes), CONFIG_DEFAULTS.SVC_DOCUMENT_WORKSPACE_QUOTA)
  assert.equal(String(c.documents.totalQuotaBytes), CONFIG_DEFAULTS.SVC_DOCUMENT_TOTAL_QUOTA)
  assert.equal(`${c.render.fairWindowMs / 1000}s`, CONFIG_DEFAULTS.SVC_RENDER_FAIR_WINDOW)
  // Every default that is a duration parses to the loaded value.
  const durations: Array<[keyof typeof CONFIG_DEFAULTS, number]> = [
    ['SVC_RENDER_TIMEOUT', c.render.timeoutMs], ['SVC_JOB_LEASE', c.jobs.leaseMs], ['SVC_JOB_POLL', c.jobs.pollMs],
    ['SVC_DOCUMENT_LINK_TTL', c.documents.linkTtlMs], ['SVC_DOCUMENT_TTL', c.documents.ttlMs], ['SVC_WEBHOOK_TIMEOUT', c.webhooks.timeoutMs]
  ]
  for (const [name, ms] of durations) {
    assert.equal(parseDuration(CONFIG_DEFAULTS[name]), ms, name)
  }
  assert.deepEqual(c.webhooks.retrySchedule, CONFIG_DEFAULTS.SVC_WEBHOOK_RETRY_SCHEDULE.split(',').map((d) => parseDuration(d)))
})

test('durations: 500ms, 30s, 5m, 2h, 1d and bare milliseconds', () => {
  const cases: Array<[string, number]> = [['500ms', 500], ['30s', 30_000], ['5m', 300_000], ['2h', 7_200_000], ['1d', 86_400_000], ['750', 750], ['1.5s', 1500]]
  for (const [text, ms] of cases) {
    assert.equal(loadConfig({ SVC_RENDER_TIMEOUT: text }, {}, 2).render.timeoutMs, ms, text)
  }
  assert.deepEqual(loadConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: '500ms, 30s,5m' }, {}, 2).webhooks.retrySchedule, [500, 30_000, 300_000])
})

test('every validation error names its variable', () => {
  configError({ SVC_RENDER_TIMEOUT: '30 seconds' }, 'SVC_RENDER_TIMEOUT')
  configError({ SVC_JOB_LEASE: '5w' }, 'SVC_JOB_LEASE')
  configError({ SVC_JOB_POLL: '-1s' }, 'SVC_JOB_POLL')
  configError({ SVC_DOCUMENT_SWEEP: 'soon' }, 'SVC_DOCUMENT_SWEEP')
  configError({ SVC_DATASOURCE_CONNECT_TIMEOUT: 'x' }, 'SVC_DATASOURCE_CONNECT_TIMEOUT')
  configError({ SVC_DATASOURCE_IDLE_TIMEOUT: '50ms' }, 'SVC_DATASOURCE_IDLE_TIMEOUT')
  configError({ SVC_DATASOURCE_IDLE_TIMEOUT: '2h' }, 'SVC_DATASOURCE_IDLE_TIMEOUT')
  configError({ SVC_WEBHOOK_RETRY_SCHEDULE: '1m,,5m' }, 'SVC_WEBHOOK_RETRY_SCHEDULE')
  configError({ SVC_WEBHOOK_RETRY_SCHEDULE: '1m,later' }, 'SVC_WEBHOOK_RETRY_SCHEDULE')
  configError({ SVC_PORT: 'http' }, 'SVC_PORT')
  configError({ SVC_PORT: '70000' }, 'SVC_PORT')
  configError({ SVC_DB_PORT: '0' }, 'SVC_DB_PORT')
  configError({ SVC_RATE_LIMIT: '-1' }, 'SVC_RATE_LIMIT')
  configError({ SVC_RATE_LIMIT: '1.5' }, 'SVC_RATE_LIMIT')
  configError({ SVC_BODY_LIMIT: '100' }, 'SVC_BODY_LIMIT')
  configError({ SVC_RENDER_THREADS: '0' }, 'SVC_RENDER_THREADS')
  configError({ SVC_RENDER_MAX_PAGES: '-3' }, 'SVC_RENDER_MAX_PAGES')
  configError({ SVC_JOB_MAX_ATTEMPTS: '101' }, 'SVC_JOB_MAX_ATTEMPTS')
  configError({ SVC_DATASOURCE_POOL_SIZE: '1000' }, 'SVC_DATASOURCE_POOL_SIZE')
  configError({ SVC_WEBHOOK_CONCURRENCY: 'many' }, 'SVC_WEBHOOK_CONCURRENCY')
  configError({ SVC_JOBS: 'maybe' }, 'SVC_JOBS')
  configError({ SVC_WEBHOOKS: '2' }, 'SVC_WEBHOOKS')
  configError({ SVC_WEBHOOKS_ALLOW_PRIVATE: 'yes please' }, 'SVC_WEBHOOKS_ALLOW_PRIVATE')
  configError({ SVC_LOG_LEVEL: 'verbose' }, 'SVC_LOG_LEVEL')
  configError({ SVC_DATABASE_URL: 'postgres://u:p@h/db' }, 'SVC_DATABASE_URL')
  configError({ SVC_PUBLIC_URL: 'http://example.com' }, 'SVC_PUBLIC_URL')
  configError({ SVC_PUBLIC_URL: 'https://example.com/api' }, 'SVC_PUBLIC_URL')
  configError({ SVC_MASTER_KEY: 'abc' }, 'SVC_MASTER_KEY')
  configError({ SVC_MASTER_KEY: 'g'.repeat(64) }, 'SVC_MASTER_KEY')
  configError({ SVC_TLS_CERT: '/tmp/cert.pem' }, 'SVC_TLS_KEY')
  configError({ SVC_TLS_KEY: '/tmp/key.pem' }, 'SVC_TLS_CERT')
})

test('the document link must live shorter than the document', () => {
  configError({ SVC_DOCUMENT_LINK_TTL: '24h' }, 'SVC_DOCUMENT_LINK_TTL')
  configError({ SVC_DOCUMENT_LINK_TTL: '2h', SVC_DOCUMENT_TTL: '1h' }, 'SVC_DOCUMENT_LINK_TTL')
  const ok = loadConfig({ SVC_DOCUMENT_LINK_TTL: '59m', SVC_DOCUMENT_TTL: '1h' }, {}, 2)
  assert.equal(ok.documents.linkTtlMs, 59 * 60_000)
  assert.equal(ok.documents.ttlMs, 3_600_000)
})

test('valid values are parsed; booleans accept true/false/1/0/yes/no/on/off', () => {
  const c = loadConfig({
    SVC_HOME: '/tmp/svc-home',
    SVC_DATABASE_URL: 'mysql://u:p@db:3306/svc',
    SVC_PUBLIC_URL: 'https://render.example.com/',
    SVC_MASTER_KEY: 'aB'.repeat(32),
    SVC_JOBS: 'off',
    SVC_WEBHOOKS: 'No',
    SVC_WEBHOOKS_ALLOW_PRIVATE: '1',
    SVC_PORT: '0',
    SVC_LOG_LEVEL: 'silent',
    SVC_RATE_LIMIT: '0'
  }, {}, 2)
  assert.equal(c.home, '/tmp/svc-home')
  assert.equal(c.databaseUrl, 'mysql://u:p@db:3306/svc')
  assert.equal(c.publicUrl, 'https://render.example.com', 'trailing slash dropped')
  assert.equal(c.jobs.enabled, false)
  assert.equal(c.webhooks.enabled, false)
  assert.equal(c.webhooks.allowPrivate, true)
  assert.equal(c.port, 0)
  assert.equal(c.logLevel, 'silent')
  assert.equal(c.rateLimit.perMinute, 0, 'SVC_RATE_LIMIT=0: keys without a limit of their own are not limited')
})

test('an empty variable counts as unset', () => {
  const c = loadConfig({ SVC_PORT: '', SVC_RENDER_TIMEOUT: '', SVC_DATABASE_URL: '' }, {}, 2)
  assert.equal(c.port, 8443)
  assert.equal(c.render.timeoutMs, 30_000)
  assert.equal(c.databaseUrl, undefined)
})

test('overrides (CLI flags) win over the environment', () => {
  const env = { SVC_HOME: '/tmp/from-env', SVC_DATABASE_URL: 'mysql://env@h/db', SVC_PORT: '9000', SVC_RATE_LIMIT: '10' }
  const c = loadConfig(env, { SVC_HOME: '/tmp/from-flag', SVC_DATABASE_URL: 'mysql://flag@h/db', SVC_PORT: '0' }, 2)
  assert.equal(c.home, '/tmp/from-flag')
  assert.equal(c.databaseUrl, 'mysql://flag@h/db')
  assert.equal(c.port, 0)
  assert.equal(c.rateLimit.perMinute, 10, 'variables without an override keep the environment value')
  // An override is validated like the variable itself.
  assert.throws(() => loadConfig(env, { SVC_PORT: 'x' }, 2), (err: unknown) => err instanceof ConfigError && err.variable === 'SVC_PORT')
})

test('HTTP limits: defaults, header timeout within the request timeout, idle timeout beyond a render', () => {
  const c = loadConfig({}, {}, 2)
  assert.equal(c.http.requestTimeoutMs, parseDuration(CONFIG_DEFAULTS.SVC_REQUEST_TIMEOUT))
  assert.equal(c.http.headersTimeoutMs, parseDuration(CONFIG_DEFAULTS.SVC_HEADERS_TIMEOUT))
  assert.equal(c.http.keepAliveTimeoutMs, parseDuration(CONFIG_DEFAULTS.SVC_KEEP_ALIVE_TIMEOUT))
  assert.equal(String(c.http.maxRequestsPerSocket), CONFIG_DEFAULTS.SVC_MAX_REQUESTS_PER_SOCKET)
  assert.equal(String(c.http.maxConnections), CONFIG_DEFAULTS.SVC_MAX_CONNECTIONS)
  assert.equal(String(c.http.authFailuresPerMinute), CONFIG_DEFAULTS.SVC_AUTH_FAILURE_LIMIT)
  assert.equal(c.http.connectionTimeoutMs, 120_000)
  assert.equal(loadConfig({ SVC_RENDER_TIMEOUT: '2m' }, {}, 2).http.connectionTimeoutMs, 240_000, 'follows the render timeout')
  assert.equal(loadConfig({ SVC_RENDER_TIMEOUT: '2m', SVC_JOB_LEASE: '1m' }, {}, 2).documents.pendingMaxAgeMs,
    120_000 + 60_000 + 300_000, 'the dead-writer cutoff follows the render timeout and the job lease')
  configError({ SVC_HEADERS_TIMEOUT: '40s' }, 'SVC_HEADERS_TIMEOUT')
  configError({ SVC_CONNECTION_TIMEOUT: '30s' }, 'SVC_CONNECTION_TIMEOUT')
  configError({ SVC_MAX_CONNECTIONS: '0' }, 'SVC_MAX_CONNECTIONS')
})

test('SVC_PROXY_PROTOCOL_FROM: a list of IP addresses, none by default', () => {
  assert.deepEqual(loadConfig({}, {}, 2).http.proxyProtocolFrom, [])
  assert.deepEqual(loadConfig({ SVC_PROXY_PROTOCOL_FROM: '10.0.0.5, 2001:db8::7' }, {}, 2).http.proxyProtocolFrom, ['10.0.0.5', '2001:db8::7'])
  assert.match(configError({ SVC_PROXY_PROTOCOL_FROM: '10.0.0.5,balancer.local' }, 'SVC_PROXY_PROTOCOL_FROM').message, /balancer\.local/)
})
