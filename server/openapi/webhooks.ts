// The events of Part 6 as the OpenAPI document's `webhooks`: the envelope and each event's data
// (types the spec leaves open as docs/webhooks.md fixes them), the delivery headers and the
// Svc-Signature scheme. What the service sends is built in server/render/outcome.ts (document
// events), services/templates.ts (template.published) and services/webhooks.ts (webhook.test).
import { JOB_ERROR_CODES } from '../http/routes/job-schema.js'
import { EVENT_EXAMPLES } from './examples.js'

type Json = Record<string, unknown>
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })
const uuid = { type: 'string', format: 'uuid' }
const timestamp = { type: 'string', format: 'date-time' }

const apiKeyRef = {
  type: 'object',
  description: 'The API key that requested the render (its id, visible prefix and name; never the secret).',
  required: ['id', 'prefix', 'name'],
  properties: { id: { type: 'string' }, prefix: { type: 'string' }, name: { type: 'string' } }
}

const renderCommon = {
  template: { type: 'string', description: 'Template code.' },
  version: { type: 'integer', description: 'Template version rendered.' },
  environment: { type: 'string', description: 'Environment key.' },
  format: { type: 'string', enum: ['pdf', 'zpl'] },
  jobId: { ...uuid, description: 'The render job; GET /api/v1/jobs/{jobId} answers it (sync renders too).' },
  runId: { ...uuid, description: 'The run in the workspace\'s run history.' },
  correlationId: { type: 'string' },
  apiKey: ref('WebhookApiKey')
}

const DATA_SCHEMAS: Record<string, Json> = {
  WebhookApiKey: apiKeyRef,
  DocumentGeneratedData: {
    type: 'object',
    required: [
      ...Object.keys(renderCommon), 'pageCount', 'outputBytes', 'fileName', 'documentUrl', 'documentExpiresAt'
    ],
    properties: {
      ...renderCommon,
      pageCount: { type: 'integer', description: 'Pages (PDF) or labels (ZPL).' },
      outputBytes: { type: 'integer' },
      fileName: { type: 'string' },
      documentUrl: {
        type: 'string', format: 'uri', description: 'Short-lived signed link; read the job for a fresh one.'
      },
      documentExpiresAt: timestamp
    }
  },
  DocumentFailedData: {
    type: 'object',
    required: [...Object.keys(renderCommon), 'errorCode', 'message'],
    properties: {
      ...renderCommon,
      errorCode: { type: 'string', enum: JOB_ERROR_CODES },
      message: { type: 'string' }
    }
  },
  TemplatePublishedData: {
    type: 'object',
    required: ['templateId', 'template', 'version', 'previousVersion', 'format', 'note', 'publishedBy'],
    properties: {
      templateId: uuid,
      template: { type: 'string', description: 'Template code.' },
      version: { type: 'integer' },
      previousVersion: {
        type: ['integer', 'null'], description: 'The version in force before; null for a first publish.'
      },
      format: { type: 'string', enum: ['document', 'label'] },
      note: { type: ['string', 'null'] },
      publishedBy: { type: ['string', 'null'], description: 'Who published, as given to `svc templates publish`.' }
    }
  },
  WebhookTestData: {
    type: 'object',
    required: ['webhookId', 'url'],
    properties: { webhookId: { ...uuid, description: 'The endpoint.' }, url: { type: 'string', format: 'uri' } }
  }
}

const event = (type: string, name: string, summary: string, description: string) =>
  ({ type, name, id: name.charAt(0).toLowerCase() + name.slice(1), summary, description })
const EVENTS = [
  event('document.generated', 'DocumentGenerated', 'A document was rendered',
    'A render through the API succeeded, sync or async.'),
  event('document.failed', 'DocumentFailed', 'A render failed',
    'A render through the API failed after its checks passed (data read or engine), sync or async.'),
  event('template.published', 'TemplatePublished', 'A template version was published',
    'A new version of a template is in force in the workspace.'),
  event('webhook.test', 'WebhookTest', 'A test event',
    'Sent on demand (`svc webhooks test`) to one endpoint, whatever it subscribes to.')
]

/** The envelope of each event, its data narrowed to the event's own. */
function envelope (type: string, data: string): Json {
  return {
    type: 'object',
    required: ['id', 'type', 'createdAt', 'workspaceId', 'data'],
    properties: {
      id: { ...uuid, description: 'Event id: the same on every retry and redelivery (store it to skip duplicates).' },
      type: { type: 'string', const: type },
      createdAt: { ...timestamp, description: 'When the event was written (UTC, milliseconds).' },
      workspaceId: uuid,
      data: ref(data)
    }
  }
}

export const SIGNATURE_DESCRIPTION = [
  'Every delivery is signed: `Svc-Signature: t=<unix seconds>, v1=<hex>`, where `v1` is the lowercase',
  'hexadecimal HMAC-SHA256 of the string `<t>.<raw body>`, keyed with the UTF-8 bytes of the whole',
  'signing secret, `whsec_` prefix included. `t` is the time of the attempt. A receiver:',
  '',
  '1. computes the HMAC over the raw body bytes as received, before any JSON parsing;',
  '2. compares in constant time;',
  '3. refuses a `t` more than 5 minutes from its own clock;',
  '4. answers 400 to a missing or wrong signature and does not process the event;',
  '5. accepts the old and the new secret for a short time while a secret is rotated.',
  '',
  'The header separates its parts with a comma **and a space** (`t=…, v1=…`): a verifier must',
  'trim around each part. A stock Stripe verifier splits on the bare comma and refuses every',
  'delivery; `verifyWebhook` of `svc/webhooks` (and `svc/client`) accepts it, and ignores schemes',
  'other than `v1` so that new ones can be added.'
].join('\n')

const header = (name: string, description: string, schema: Json): Json =>
  ({ name, in: 'header', required: true, description, schema })

const DELIVERY_HEADERS = [
  header('User-Agent', 'Always `Svc-Webhooks/1.0`.', { type: 'string', const: 'Svc-Webhooks/1.0' }),
  header('Svc-Event-Id', 'The event id (the envelope\'s `id`): identical on every retry and redelivery.', uuid),
  header('Svc-Delivery', 'This delivery: the same on retries of it, new on a redelivery.', uuid),
  header('Svc-Signature', 'The signature (see the svcSignature security scheme).',
    { type: 'string', pattern: '^t=\\d+, ?v1=[0-9a-f]{64}(, ?[a-z0-9]+=[0-9a-f]+)*$' })
]

/** components.schemas of the events, and the `webhooks` section. */
export function webhooksSection (): { schemas: Record<string, Json>, webhooks: Record<string, Json> } {
  const schemas: Record<string, Json> = { ...DATA_SCHEMAS }
  const webhooks: Record<string, Json> = {}
  for (const e of EVENTS) {
    schemas[`${e.name}Event`] = envelope(e.type, `${e.name}Data`)
    webhooks[e.type] = {
      post: {
        operationId: e.id,
        tags: ['events'],
        summary: e.summary,
        description: `${e.description} An HTTPS POST with a JSON body (Content-Type: application/json) to every ` +
          'enabled endpoint subscribed to the event. The same event may arrive more than once, and events may ' +
          'arrive out of order.',
        security: [{ svcSignature: [] }],
        parameters: [
          header('Svc-Event', 'The event type.', { type: 'string', const: e.type }),
          ...DELIVERY_HEADERS
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref(`${e.name}Event`), example: EVENT_EXAMPLES[e.type] } }
        },
        responses: {
          '2XX': {
            description: 'Received: any 2xx within a few seconds ends the delivery. Anything else, a timeout or a ' +
              'connection failure is retried after 1 min, 5 min, 30 min, 2 h and 12 h (6 attempts in all), then ' +
              'the delivery is abandoned.'
          },
          400: { description: 'The signature is missing or wrong, or its `t` is out of tolerance: not processed.' }
        }
      }
    }
  }
  return { schemas, webhooks }
}
