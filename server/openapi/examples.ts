// Examples of the OpenAPI document: the demo's (`svc demo`: the invoice example template, its
// data, a live key). Redocly's lint checks each against its schema (no-invalid-media-type-examples).
const JOB_ID = '0f9b8a2e-6c1d-4e57-9a3b-2d4c5e6f7a81'
const BASE = 'https://render.example.net/api/v1'
const KEY = { id: 'k7Qm2xWv9LpA', prefix: 'svc_live_k7Qm2xWv9LpA', name: 'demo live key' }
const WORKSPACE = '5c0e2b1a-3d4f-4a6b-8c7d-9e0f1a2b3c4d'

export const RENDER_REQUEST = { template: 'invoice', parameters: { invoiceId: 1 }, fileName: 'INV-2026-0001.pdf' }
export const RENDER_ASYNC_REQUEST = { template: 'invoice', parameters: { invoiceId: 2 }, async: true }

const job = {
  jobId: JOB_ID,
  statusUrl: `${BASE}/jobs/${JOB_ID}`,
  template: 'invoice',
  version: 1,
  environment: 'production',
  format: 'pdf',
  fileName: 'invoice-v1.pdf',
  createdAt: '2026-11-26T09:14:03.512Z',
  labelCount: null,
  correlationId: 'order-4711'
}
export const QUEUED_JOB = {
  ...job,
  status: 'queued',
  attempts: 0,
  startedAt: null,
  completedAt: null,
  pageCount: null,
  outputBytes: null,
  documentUrl: null,
  documentUrlExpiresAt: null,
  documentExpiresAt: null,
  error: null
}
export const SUCCEEDED_JOB = {
  ...job,
  status: 'succeeded',
  attempts: 1,
  startedAt: '2026-11-26T09:14:03.530Z',
  completedAt: '2026-11-26T09:14:03.561Z',
  pageCount: 1,
  outputBytes: 3359,
  documentUrl: `${BASE}/documents/0f9b8a2e6c1d4e579a3b2d4c5e6f7a81.1764148143.Yx3k0Qh8Z2p9mN4vB7cD1eF6gH5jK8lM`,
  documentUrlExpiresAt: '2026-11-26T09:29:03.600Z',
  documentExpiresAt: '2026-11-27T09:14:03.561Z',
  error: null
}

const fields = (spec: string): Array<{ name: string, type: string }> =>
  spec.split(' ').map((f) => ({ name: f.slice(0, f.indexOf(':')), type: f.slice(f.indexOf(':') + 1) }))

const LINE_FIELDS = 'line_no:integer sku:string description:string qty:decimal unit:string unit_price:decimal ' +
  'vat_category:string vat_rate:decimal amount:decimal'

export const INVOICE_TEMPLATE = {
  code: 'invoice',
  description: 'Customer invoice as a Factur-X (EN 16931) e-invoice: line items, VAT breakdown and totals computed ' +
    'by the engine, a Code128 of the invoice number',
  documentType: 'invoice',
  format: 'document',
  version: 1,
  updatedAt: '2026-11-26T08:00:00.000Z',
  parameters: [
    {
      name: 'invoiceId', type: 'integer', required: true, defaultValue: null, description: 'Internal id of the invoice'
    }
  ],
  parameterSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['invoiceId'],
    additionalProperties: false,
    properties: { invoiceId: { type: 'integer', minimum: 1, description: 'Internal id of the invoice' } }
  },
  datasets: [
    {
      code: 'header',
      description: 'Invoice header with customer',
      cardinality: 'single',
      fields: fields('number:string type_code:string issued_on:date due_on:date delivered_on:date ' +
        'preceding_number:string customer_name:string customer_address:string customer_street:string ' +
        'customer_postcode:string customer_city:string customer_country:string customer_vat_id:string ' +
        'currency:string subtotal:decimal tax:decimal total:decimal')
    },
    {
      code: 'lines',
      description: 'Invoice lines in order',
      cardinality: 'multiple',
      fields: fields(LINE_FIELDS)
    },
    {
      code: 'allowances',
      description: 'Document-level allowances (discounts on the whole invoice)',
      cardinality: 'multiple',
      fields: fields('reason:string amount:decimal vat_category:string vat_rate:decimal')
    }
  ]
}
export const TEMPLATE_PAGE = { data: [INVOICE_TEMPLATE], nextCursor: null }

export const DATASET_REQUEST = { parameters: { invoiceId: 2 }, environment: 'production', maxRows: 100 }
export const DATASET_RESULT = {
  template: 'invoice',
  version: 1,
  dataset: 'lines',
  environment: 'production',
  columns: fields(LINE_FIELDS),
  rows: [{
    line_no: 1,
    sku: 'SKU-X',
    description: 'Single item',
    qty: '2.00',
    unit: 'H87',
    unit_price: '25.00',
    vat_category: 'G',
    vat_rate: '0.00',
    amount: '50.00'
  }],
  rowCount: 1,
  truncated: false,
  elapsedMs: 3
}

export const WHOAMI = {
  keyId: KEY.id,
  prefix: KEY.prefix,
  name: KEY.name,
  mode: 'live',
  scopes: ['render', 'templates.read', 'datasets.execute'],
  workspaceId: WORKSPACE,
  defaultEnvironment: 'production'
}

const envelope = (type: string, id: string, data: Record<string, unknown>): Record<string, unknown> =>
  ({ id, type, createdAt: '2026-11-26T09:14:03.570Z', workspaceId: WORKSPACE, data })
const renderData = {
  template: 'invoice',
  version: 1,
  environment: 'production',
  format: 'pdf',
  jobId: JOB_ID,
  runId: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
  correlationId: 'order-4711',
  apiKey: KEY
}

export const EVENT_EXAMPLES: Record<string, Record<string, unknown>> = {
  'document.generated': envelope('document.generated', '3e1d5c7b-9a2f-4b6d-8e0c-1a3b5c7d9e2f', {
    ...renderData,
    pageCount: 1,
    outputBytes: 3359,
    fileName: 'invoice-v1.pdf',
    documentUrl: `${BASE}/documents/0f9b8a2e6c1d4e579a3b2d4c5e6f7a81.1764148143.Yx3k0Qh8Z2p9mN4vB7cD1eF6gH5jK8lM`,
    documentExpiresAt: '2026-11-27T09:14:03.561Z'
  }),
  'document.failed': envelope('document.failed', '4f2e6d8c-0b3a-4c7e-9f1d-2b4c6d8e0f3a', {
    ...renderData,
    errorCode: 'DATASET_FAILED',
    message: 'Dataset "header" is required and returned no row for these parameters'
  }),
  'template.published': envelope('template.published', '5a3f7e9d-1c4b-4d8f-a02e-3c5d7e9f1a4b', {
    templateId: '6b4a8f0e-2d5c-4e9a-b13f-4d6e8f0a2b5c',
    template: 'invoice',
    version: 2,
    previousVersion: 1,
    format: 'document',
    note: 'New footer',
    publishedBy: 'ada@example.net'
  }),
  'webhook.test': envelope('webhook.test', '6c5b9a1f-3e6d-4fab-8c24-5e7f9a1b3c6d', {
    webhookId: '7d6cab2a-4f7e-4abc-9d35-6f8a0b2c4d7e',
    url: 'https://hooks.example.net/svc'
  })
}
