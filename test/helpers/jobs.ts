// A job row as the job tests insert it: fields that don't matter to a test get fixed values;
// a test names only what it checks (its id, workspace, version, parameters…).
import { randomUUID } from 'node:crypto'
import type { NewJob } from '../../server/store/repos/jobs.js'

export const newJob = (fields: Partial<NewJob> = {}): NewJob => ({
  id: randomUUID(),
  workspaceId: randomUUID(),
  apiKeyId: 'k',
  apiKeyPrefix: 'svc_live_k',
  apiKeyName: 'k',
  templateId: randomUUID(),
  templateCode: 'invoice',
  version: 1,
  environment: 'production',
  format: 'pdf',
  parameters: {},
  context: {},
  fileName: 'f.pdf',
  correlationId: 'c',
  ...fields
})
