// JSON Schema of the render job (spec 2.2), shared by POST /render (202) and GET /jobs/{id}.
const nullableString = { type: ['string', 'null'] } as const
const nullableInt = { type: ['integer', 'null'] } as const

/** A failed job's error.code (2.2): the render codes of Part 7, plus RENDER_TIMEOUT and JOB_ABANDONED
 *  (a job's own). An unexpected failure is recorded as RENDER_FAILED (jobs/service.ts). */
export const JOB_ERROR_CODES = [
  'PARAMETER_INVALID', 'ENVIRONMENT_NOT_ALLOWED', 'TEMPLATE_NOT_FOUND', 'TEMPLATE_NOT_PUBLISHED', 'VERSION_NOT_FOUND',
  'ENVIRONMENT_NOT_FOUND', 'TEMPLATE_DISABLED', 'FORMAT_MISMATCH', 'RENDER_FAILED', 'RENDER_LIMIT_EXCEEDED',
  'DATASET_FAILED', 'DATA_SOURCE_UNAVAILABLE', 'RENDER_BUSY', 'RENDER_TIMEOUT', 'JOB_ABANDONED'
] as const

export const jobSchema = {
  type: 'object',
  required: ['jobId', 'status', 'statusUrl', 'template', 'version', 'environment', 'format', 'attempts', 'createdAt', 'error', 'correlationId'],
  properties: {
    jobId: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    statusUrl: { type: 'string' },
    template: { type: 'string' },
    version: { type: 'integer' },
    environment: { type: 'string' },
    format: { type: 'string', enum: ['pdf', 'zpl'] },
    attempts: { type: 'integer' },
    fileName: { type: 'string' },
    createdAt: { type: 'string' },
    startedAt: nullableString,
    completedAt: nullableString,
    pageCount: nullableInt,
    labelCount: nullableInt,
    labelDpi: { ...nullableInt, description: 'labels: the printer resolution rendered at (an extension beyond spec 2.2)' },
    outputBytes: nullableInt,
    documentUrl: nullableString,
    documentUrlExpiresAt: nullableString,
    documentExpiresAt: nullableString,
    error: {
      type: ['object', 'null'],
      required: ['code', 'message'],
      properties: { code: { type: 'string', enum: JOB_ERROR_CODES }, message: { type: 'string' } }
    },
    correlationId: { type: 'string' }
  }
} as const
