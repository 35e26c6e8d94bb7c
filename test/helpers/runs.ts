// A run record as the run tests write it: a successful sync render of one page, fields that
// don't matter to a test fixed; a test names only what it checks (its id, mode, job…).
import { randomUUID } from 'node:crypto'
import type { RunRecord } from '../../server/store/repos/runs.js'

export const newRun = (fields: Partial<RunRecord> = {}): RunRecord => ({
  id: randomUUID(),
  workspaceId: randomUUID(),
  apiKeyId: 'k',
  apiKeyPrefix: 'svc_live_k',
  apiKeyName: 'k',
  correlationId: 'c',
  mode: 'sync',
  jobId: null,
  templateCode: 'invoice',
  version: 1,
  environment: 'production',
  format: 'pdf',
  status: 'succeeded',
  errorCode: null,
  errorMessage: null,
  durationMs: 1,
  pageCount: 1,
  labelCount: null,
  outputBytes: 1,
  warningCount: 0,
  warnings: [],
  startedAt: new Date(),
  completedAt: new Date(),
  ...fields
})
