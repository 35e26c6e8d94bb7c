// The OpenAPI document against the spec (issue 37): every status Part 4 lists for an operation is
// documented with the errorCodes Part 7 gives it, nothing is answered at a status it does not
// have, every HTTP errorCode of the catalogue appears under some response, the job's error.code
// and the webhooks are there. Offline, as `svc openapi` prints it (no database, no network).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { PROBLEMS } from '../../../server/errors.js'
import type { ErrorCode } from '../../../server/errors.js'
import { openapiDocument } from '../../../server/openapi/generate.js'
import { eventData } from '../../../server/render/outcome.js'
import { projectRoot } from '../../../server/util/paths.js'

// The document is plain JSON under test: the assertions check its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any
const URL_ = 'https://render.example.net'
const docPromise = openapiDocument(URL_)

// Transcribed from the spec, independently of server/openapi/problems.ts. Part 5 and Part 8:
// every keyed operation answers the key's problems; Part 7: INTERNAL_ERROR anywhere.
const KEY = {
  401: ['API_KEY_INVALID', 'API_KEY_REVOKED', 'API_KEY_EXPIRED'],
  403: ['SCOPE_MISSING', 'WORKSPACE_MISMATCH'],
  429: ['RATE_LIMITED'],
  500: ['INTERNAL_ERROR']
}
const SPEC: Record<string, { path: string, method: string, success: number[], problems: Record<number, string[]> }> = {
  // Part 4, POST /v1/render: its error list, code by code; Part 5 item 4 for ENVIRONMENT_NOT_ALLOWED.
  render: {
    path: '/api/v1/render',
    method: 'post',
    success: [200, 202],
    problems: {
      ...KEY,
      400: ['VALIDATION_FAILED', 'PARAMETER_INVALID'],
      403: ['SCOPE_MISSING', 'WORKSPACE_MISMATCH', 'ENVIRONMENT_NOT_ALLOWED'],
      404: ['TEMPLATE_NOT_FOUND', 'TEMPLATE_NOT_PUBLISHED', 'VERSION_NOT_FOUND', 'ENVIRONMENT_NOT_FOUND'],
      409: ['TEMPLATE_DISABLED'],
      422: ['FORMAT_MISMATCH', 'RENDER_FAILED', 'RENDER_LIMIT_EXCEEDED', 'DATASET_FAILED'],
      503: ['DATA_SOURCE_UNAVAILABLE', 'RENDER_BUSY']
    }
  },
  getJob: { path: '/api/v1/jobs/{jobId}', method: 'get', success: [200], problems: { ...KEY, 404: ['JOB_NOT_FOUND'] } },
  // No API key: only the link's own answer.
  downloadDocument: {
    path: '/api/v1/documents/{token}',
    method: 'get',
    success: [200],
    problems: { 404: ['DOCUMENT_NOT_FOUND'], 500: ['INTERNAL_ERROR'] }
  },
  listTemplates: { path: '/api/v1/templates', method: 'get', success: [200], problems: KEY },
  getTemplate: { path: '/api/v1/templates/{code}', method: 'get', success: [200], problems: KEY },
  executeDataset: {
    path: '/api/v1/datasets/{template}/{dataset}/execute',
    method: 'post',
    success: [200],
    problems: {
      ...KEY,
      403: ['SCOPE_MISSING', 'WORKSPACE_MISMATCH', 'ENVIRONMENT_NOT_ALLOWED'],
      404: ['DATASET_NOT_FOUND', 'TEMPLATE_NOT_FOUND'],
      422: ['DATASET_FAILED'],
      503: ['DATA_SOURCE_UNAVAILABLE']
    }
  },
  whoami: { path: '/api/v1/whoami', method: 'get', success: [200], problems: KEY }
}

// Codes no HTTP answer of the API carries, so no response may list them:
const NOT_HTTP: ErrorCode[] = [
  // a failed job's error.code only (Part 7), checked in the job's enum below
  'RENDER_TIMEOUT', 'JOB_ABANDONED',
  // the CLI's (svc workspaces/keys/webhooks/templates publish/db): management is not part of this API
  // (Part 4, "Management of API keys and webhooks": not shown), so neither is WEBHOOK_DISABLED
  'WEBHOOK_DISABLED', 'WORKSPACE_NOT_FOUND', 'API_KEY_NOT_FOUND', 'WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND',
  'CONFLICT', 'TEMPLATE_INVALID', 'WEBHOOK_URL_REFUSED', 'DATABASE_UNAVAILABLE'
]

/** A response, its $ref to components.responses followed. */
function resolve (doc: Json, response: Json): Json {
  const ref: unknown = response?.$ref
  if (typeof ref !== 'string') return response
  const name = ref.replace('#/components/responses/', '')
  assert.ok(doc.components.responses[name], `dangling ${ref}`)
  return doc.components.responses[name]
}
const codesOf = (response: Json): string[] =>
  response.content?.['application/problem+json']?.schema?.properties?.errorCode?.enum ?? []

test('every status the spec lists for an operation is documented with the errorCodes Part 7 gives it', async () => {
  const doc: Json = await docPromise
  for (const [id, spec] of Object.entries(SPEC)) {
    const op = doc.paths[spec.path]?.[spec.method]
    assert.ok(op, `${id}: ${spec.method} ${spec.path} documented`)
    assert.equal(op.operationId, id)
    assert.ok(op.summary && op.description && op.tags.length === 1, `${id}: summary, description, tag`)
    assert.ok(!('4XX' in op.responses) && !('5XX' in op.responses), `${id}: no status ranges`)
    for (const status of spec.success) assert.ok(op.responses[status], `${id}: ${status}`)
    for (const [status, codes] of Object.entries(spec.problems)) {
      const response = resolve(doc, op.responses[status])
      assert.ok(response, `${id}: ${status} documented`)
      const documented = codesOf(response)
      for (const code of codes) assert.ok(documented.includes(code), `${id} ${status}: ${code}`)
    }
  }
})

test('each problem response carries only codes of its own status, with the spec\'s headers', async () => {
  const doc: Json = await docPromise
  const statusOf = (r: Json): string => String(r.content['application/problem+json'].schema.properties.status.const)
  const responses: Array<[string, string, Json]> =
    Object.entries(doc.components.responses).map(([n, r]) => [n, statusOf(r), r])
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(methods)) {
      for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
        responses.push([`${op.operationId as string} (${path})`, status, resolve(doc, r)])
      }
    }
  }
  let problems = 0
  for (const [where, status, r] of responses) {
    assert.ok(r.headers?.['X-Correlation-ID'], `${where} ${status}: X-Correlation-ID`)
    if (Number(status) < 400) continue
    problems++
    const codes = codesOf(r)
    assert.ok(codes.length > 0, `${where} ${status}: an errorCode enum`)
    for (const code of codes) {
      assert.equal(PROBLEMS[code as ErrorCode].status, Number(status), `${where}: ${code} at ${status}`)
    }
    if (status === '429' || status === '503') assert.ok(r.headers['Retry-After'], `${where} ${status}: Retry-After`)
    if (status === '401') assert.ok(r.headers['WWW-Authenticate'], `${where}: WWW-Authenticate`)
  }
  assert.ok(problems > 50, 'the operations\' problem responses were all seen')
  const render = doc.paths['/api/v1/render'].post.responses
  assert.deepEqual(Object.keys(render[200].content), ['application/pdf', 'application/zpl'])
  const part4 = ['Content-Disposition', 'X-Template-Version', 'X-Page-Count', 'X-Label-Count', 'X-Document-Format',
    'X-Environment', 'X-Run-ID']
  for (const h of part4) {
    assert.ok(render[200].headers[h], `render 200: ${h}`)
  }
  assert.equal(render[202].headers.Location.required, true)
  assert.equal(render[202].content['application/json'].schema.$ref, '#/components/schemas/RenderJob')
  const download = doc.paths['/api/v1/documents/{token}'].get
  assert.deepEqual(Object.keys(download.responses[200].content), ['application/pdf', 'application/zpl'])
  assert.deepEqual(download.security, [])
})

test('every HTTP errorCode of the catalogue appears under some response; the others under none', async () => {
  const doc: Json = await docPromise
  const seen = new Set<string>()
  const all = [
    ...Object.values(doc.components.responses),
    ...Object.values(doc.paths as Record<string, Record<string, Json>>)
      .flatMap((m) => Object.values(m).flatMap((op) => Object.values(op.responses)))
  ]
  for (const r of all) for (const code of codesOf(r)) seen.add(code)
  for (const code of Object.keys(PROBLEMS) as ErrorCode[]) {
    if (NOT_HTTP.includes(code)) assert.ok(!seen.has(code), `${code} is no HTTP answer of the API`)
    else assert.ok(seen.has(code), `${code} documented under some response`)
  }
})

test('job error.code and document.failed errorCode: the render codes, RENDER_TIMEOUT, JOB_ABANDONED', async () => {
  const doc: Json = await docPromise
  const jobCodes: string[] = doc.components.schemas.RenderJob.properties.error.properties.code.enum
  const failedCodes: string[] = doc.components.schemas.DocumentFailedData.properties.errorCode.enum
  for (const codes of [jobCodes, failedCodes]) {
    const expected = ['RENDER_TIMEOUT', 'JOB_ABANDONED', 'RENDER_FAILED', 'RENDER_LIMIT_EXCEEDED', 'DATASET_FAILED']
    for (const code of expected) assert.ok(codes.includes(code), code)
  }
})

test('webhooks: the four events of Part 6 with their envelope, data, delivery headers and signature', async () => {
  const doc: Json = await docPromise
  const events = ['document.failed', 'document.generated', 'template.published', 'webhook.test']
  assert.deepEqual(Object.keys(doc.webhooks).sort(), events)
  for (const [type, item] of Object.entries(doc.webhooks as Record<string, Json>)) {
    const headers = (item.post.parameters as Json[]).map((p) => p.name)
    assert.deepEqual(headers, ['Svc-Event', 'User-Agent', 'Svc-Event-Id', 'Svc-Delivery', 'Svc-Signature'], type)
    assert.deepEqual(item.post.security, [{ svcSignature: [] }])
    const name = item.post.requestBody.content['application/json'].schema.$ref.split('/').pop()
    const schema = doc.components.schemas[name]
    assert.equal(schema.properties.type.const, type)
    assert.deepEqual(schema.required, ['id', 'type', 'createdAt', 'workspaceId', 'data'])
  }
  const scheme = doc.components.securitySchemes.svcSignature
  assert.equal(scheme.name, 'Svc-Signature')
  assert.match(scheme.description, /`<t>\.<raw body>`/)
  assert.match(scheme.description, /comma \*\*and a space\*\*/)
  // The header's documented pattern accepts what the service sends (webhooks/signature.ts: ", ").
  const signature = doc.webhooks['webhook.test'].post.parameters.find((p: Json) => p.name === 'Svc-Signature')
  const pattern = new RegExp(signature.schema.pattern)
  assert.ok(pattern.test(`t=1764148143, v1=${'ab'.repeat(32)}`))
})

test('the event data the service writes validates against the document\'s webhook schemas', async () => {
  const doc: Json = await docPromise
  const ajv = new Ajv2020({ strict: false })
  addFormats.default(ajv)
  ajv.addSchema(doc, 'doc')
  const job = {
    id: '0f9b8a2e-6c1d-4e57-9a3b-2d4c5e6f7a81',
    templateCode: 'invoice',
    version: 3,
    environment: 'production',
    format: 'pdf' as const,
    fileName: 'invoice-v3.pdf',
    correlationId: 'c-1',
    apiKeyId: 'k7Qm2xWv9LpA',
    apiKeyPrefix: 'svc_live_k7Qm2xWv9LpA',
    apiKeyName: 'ci'
  }
  const links = { mint: () => ({ token: 'tok', expiresAt: new Date() }) }
  const deps = { links, baseUrl: () => URL_ } as unknown as Parameters<typeof eventData>[0]
  const runId = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a'
  const ok = { ok: true, outputBytes: 10, pageCount: 2, labelCount: null, errorCode: null, errorMessage: null }
  const failed = { ...ok, ok: false, errorCode: 'RENDER_TIMEOUT' as const, errorMessage: 'render time limit' }
  for (const [outcome, schema] of [[ok, 'DocumentGeneratedData'], [failed, 'DocumentFailedData']] as const) {
    const event = eventData(deps, job, runId, outcome, outcome.ok ? 'doc-1' : null, outcome.ok ? new Date() : null)
    const validate = ajv.compile({ $ref: `doc#/components/schemas/${schema}` })
    assert.equal(validate(event.data), true, `${schema}: ${JSON.stringify(validate.errors)}`)
  }
})

test('svc openapi prints the same document offline: no database, no network', async () => {
  // A database that does not exist on an address nobody answers (TEST-NET-1): never asked.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SVC_HOME: '/nonexistent/svc-home',
    SVC_DATABASE_URL: 'mysql://nobody@192.0.2.1:1/none'
  }
  const argv = [join(projectRoot, 'bin', 'svc'), 'openapi', '--server', URL_]
  const { stdout } = await promisify(execFile)(process.execPath, argv, { env })
  assert.deepEqual(JSON.parse(stdout), JSON.parse(JSON.stringify(await docPromise)))
})

test('Redocly\'s recommended rules pass on it, warnings included, as make lint runs them', async () => {
  // The Makefile's lint line: the document `svc openapi` writes to dist/openapi.json (the path
  // .redocly.lint-ignore.yaml names), linted with redocly.yaml (recommended-strict).
  const run = promisify(execFile)
  const svc = [join(projectRoot, 'bin', 'svc'), 'openapi', '--output', 'dist/openapi.json']
  await run(process.execPath, svc, { cwd: projectRoot })
  const redocly = join(projectRoot, 'node_modules', '.bin', 'redocly')
  const args = ['lint', '--config', 'redocly.yaml', 'dist/openapi.json']
  const { stdout, stderr } = await run(redocly, args, { cwd: projectRoot })
  const report = stdout + stderr
  assert.match(report, /Your API description is valid/)
  assert.doesNotMatch(report, /\d+ (errors?|warnings?)\b/, report)
})
