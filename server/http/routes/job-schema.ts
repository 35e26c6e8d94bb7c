// JSON Schema of the render job (spec 2.2), shared by POST /render (202) and GET /jobs/{id}.
const nullableString = { type: ['string', 'null'] } as const
const nullableInt = { type: ['integer', 'null'] } as const

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
      properties: { code: { type: 'string' }, message: { type: 'string' } }
    },
    correlationId: { type: 'string' }
  }
} as const
