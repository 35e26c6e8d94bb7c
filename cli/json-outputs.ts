// What each command prints with --json, and when it exits 1 besides a failure: the one source
// for docs/cli.md (cli/docs.ts) and the commands' --help. Keyed by the command's path. A command
// without an entry fails the docs test, so a new command cannot go undocumented.

export interface JsonOutput {
  /** The JSON document on stdout when the command succeeds. */
  json: string
  /** Exit 1 for a reason other than a failure (a problem document), if any. */
  exit1?: string
}

const endpoint = '{ id, workspaceId, url, events[], description, enabled, createdAt, updatedAt }'
const delivery = '{ id, eventId, eventType, endpointId, status (pending|succeeded|failed|abandoned), attempts, ' +
  'lastHttpStatus, ' +
  'lastResponseExcerpt, lastError, nextAttemptAt, createdAt, updatedAt }'
const key = '{ id, prefix, name, mode, scopes[], state (active|revoked|expired), expiresAt, lastUsedAt, createdAt, ' +
  'workspaceId }'
const environment = '{ id, workspaceId, key, production, labelDpi (null: each template\'s own), ' +
  'dataSource: { host, port, user, database } | null, createdAt } (never a password)'

export const JSON_OUTPUTS: Record<string, JsonOutput> = {
  'db start': { json: '{ running: true, port, database, user, home }' },
  'db stop': { json: '{ stopped: boolean } (false: it was not running)' },
  'db status': {
    json: '{ running, pid, port, dir, external (SVC_DATABASE_URL set), error (why an external database does not ' +
      'answer, else null) }',
    exit1: 'the database is not running (or, with SVC_DATABASE_URL, does not answer)'
  },
  'db migrate': { json: '{ applied: [file], current: [file] }' },
  serve: {
    json: 'nothing on success: it serves until SIGINT/SIGTERM (logs go to stdout or SVC_LOG_FILE); ' +
    'a failure to start is a problem document'
  },
  'workspaces create': { json: '{ id, name, createdAt }' },
  'workspaces list': { json: '[{ id, name, createdAt }]' },
  'envs create': { json: environment },
  'envs set-datasource': { json: environment },
  'envs set-label-dpi': { json: environment },
  'envs list': { json: `[${environment}]` },
  'keys create': {
    json: '{ key (the full key, shown only now), id, prefix, name, mode, scopes[], expiresAt, workspaceId }'
  },
  'keys list': { json: `[${key}]` },
  'keys revoke': { json: key },
  'keys set-rate-limit': { json: `${key.slice(0, -2)}, rateLimit (null: SVC_RATE_LIMIT) }` },
  'secrets status': {
    json: '{ activeKeyId, configuredKeyIds[], counts: [{ table, column, keyId (legacy: sealed before key ids), ' +
      'values, configured }] }'
  },
  'secrets rotate': {
    json: '{ activeKeyId, resealed, skipped (changed meanwhile, left as written), unreadable: [{ table, column, id, ' +
      'reason }] }',
    exit1: 'some value could not be opened with the configured keys (listed in unreadable)'
  },
  'secrets add-key': {
    json: '{ keyId, file } (keyring file) or { keyId, SVC_MASTER_KEYS } (keys from the environment)'
  },
  'secrets remove-key': { json: '{ keyId, file }' },
  'runs list': {
    json: '[{ id, workspaceId, apiKeyId, apiKeyPrefix, apiKeyName, correlationId, mode (sync|async), jobId, ' +
      'templateCode, version, ' +
      'environment, format, status (succeeded|failed), errorCode, errorMessage, durationMs, pageCount, labelCount, ' +
        'outputBytes, ' +
      'warningCount, warnings[] (the first few texts), startedAt, completedAt }], newest first'
  },
  'templates validate': {
    json: '{ valid: true, code, format, parameters (count), datasets (count), warnings?: [{ path, message }] ' +
      '(only when there are any) }',
    exit1: 'the file is invalid: a TEMPLATE_INVALID problem whose `errors` are keyed by JSON pointer'
  },
  'templates preview': {
    json: '{ output, format (pdf|zpl|png), bytes (all files), pageCount, labelCount, files[] ' +
      '(several for out-%d.png), warnings[] }'
  },
  'templates publish': { json: '{ templateId, code, version, previousVersion, format }' },
  'templates list': { json: '[{ code, format, version, disabled, updatedAt, description }] (disabled ones included)' },
  'templates disable': { json: '{ code, disabled: true }' },
  'templates enable': { json: '{ code, disabled: false }' },
  bench: {
    json: 'one BenchResult (cli/bench/types.ts): { mode, async, url, template, connections, rate, startedAt, ' +
      'warmupMs, durationMs, total, ' +
      'errors, errorRate, maxErrorRate, passed, requestsPerSec, bytes, bytesPerSec, latency { count, min, mean, ' +
        'stdev, p50, p90, p99, p999, max }, ' +
      'statuses, errorCodes, sendLagMaxMs, asyncResult, abortedEarly }; a failed probe prints its problem document ' +
        'instead',
    exit1: 'the error rate is above --max-error-rate, nothing was measured, the run stopped early (abortedEarly), ' +
      'or the probe failed'
  },
  'webhooks create': { json: `${endpoint.slice(0, -2)}, secret (whsec_…, shown only now) }` },
  'webhooks list': { json: `[${endpoint}]` },
  'webhooks show': { json: endpoint },
  'webhooks disable': { json: endpoint },
  'webhooks enable': { json: `${endpoint.slice(0, -2)}, resumedDeliveries }` },
  'webhooks delete': { json: '{ id, deleted: true }' },
  'webhooks rotate-secret': { json: '{ id, secret (the new whsec_…, shown only now) }' },
  'webhooks test': { json: '{ endpointId, eventId, deliveryId }' },
  'webhooks deliveries': { json: `[${delivery}], newest first` },
  'webhooks delivery': {
    json: `${delivery.slice(0, -2)}, attemptLog: [{ attempt, startedAt, durationMs, httpStatus, ` +
    'excerpt, error }] }'
  },
  'webhooks redeliver': { json: `${delivery} (the new delivery, same eventId)` },
  'webhooks listen': {
    json: 'JSON lines: first { listening: url, certFile }, then one per delivery: { verified: true, event, eventId, ' +
      'delivery, body } ' +
      'or { verified: false, reason, event, eventId, delivery }'
  },
  demo: {
    json: '{ workspace { id, name, created }, environments [{ key, database, user, seeded, rows }], ' +
      'templates [{ code, version, published }], ' +
      'rerun, baseUrl, caCert, keys { live, test: { key, prefix, defaultEnvironment } }, ' +
        'commands { renderInvoicePdf, renderAsync, pollJob, ' +
      'downloadDocument, renderLabels, listTemplates, executeDataset }, notes[] }'
  },
  completion: { json: 'not JSON: the shell script itself, whatever --json says' },
  openapi: { json: 'the OpenAPI 3.1 document itself (JSON either way), on stdout or in --output' },
  studio: {
    json: 'not JSON: the one line `studio: http://127.0.0.1:PORT/TOKEN/` whatever --json says, then it serves ' +
      'until SIGINT/SIGTERM; a failure to start is a problem document'
  }
}
