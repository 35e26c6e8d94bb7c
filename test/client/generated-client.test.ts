// A client generated from the document a real server serves, with standard tools: openapi-typescript
// for the types, openapi-fetch for the calls, tsc (strict) to compile the demo flow written against
// them (test/client/demo-flow.ts.txt), then that flow run against the server over HTTPS: sync render,
// async render + polling + download, templates, a dataset, a typed 404. Every answer is also
// validated against the document's own schema for it (the document tells the truth).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import { fetch as undiciFetch } from 'undici'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { renderFixture } from '../helpers/render-data.js'
import { projectRoot } from '../../server/util/paths.js'
import { openapiDocument } from '../../server/openapi/generate.js'

const script = pathToFileURL(join(projectRoot, 'scripts', 'client-types.mjs')).href
const { clientTypes } = await import(script) as { clientTypes: (document: unknown) => Promise<string> }

// Parsed JSON under test: the assertions check its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

let fx: Awaited<ReturnType<typeof renderFixture>>
let dir: string

before(async () => {
  fx = await renderFixture('genclient')
  // Inside the project, so the generated code resolves openapi-fetch and @types/node from node_modules.
  await mkdir(join(projectRoot, '.svc'), { recursive: true })
  dir = await mkdtemp(join(projectRoot, '.svc', 'generated-client-'))
})
after(async () => {
  await fx.close()
  await rm(dir, { recursive: true, force: true })
})

/** Compiles the flow and the generated types with tsc, strict; the diagnostics are the failures. */
function compile (): string[] {
  const program = ts.createProgram([join(dir, 'demo-flow.ts')], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    noEmitOnError: true,
    outDir: dir
  })
  const emitted = program.emit()
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

/** openapi-fetch's fetch, through undici with the server's self-signed certificate trusted. */
async function fetchWithCa (input: Request): Promise<Response> {
  const body = input.body === null ? undefined : Buffer.from(await input.arrayBuffer())
  const init = { method: input.method, headers: [...input.headers], body, dispatcher: fx.server.agent }
  const res = await undiciFetch(input.url, init)
  return res
}

test('a client generated from the served document compiles and drives the demo flow', async () => {
  const served = await fx.server.fetch('GET', '/api/v1/openapi.json')
  assert.equal(served.status, 200)
  const doc: Json = served.json()
  // The served document is the one `svc openapi` prints, with this server's URL.
  assert.deepEqual(doc, JSON.parse(JSON.stringify(await openapiDocument(fx.server.url))))
  assert.deepEqual(doc.servers, [{ url: fx.server.url, description: 'This service (its public URL)' }])

  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  await writeFile(join(dir, 'api.ts'), await clientTypes(doc))
  await copyFile(join(projectRoot, 'test', 'client', 'demo-flow.ts.txt'), join(dir, 'demo-flow.ts'))
  assert.deepEqual(compile(), [])

  const flow = await import(pathToFileURL(join(dir, 'demo-flow.js')).href) as {
    demoFlow: (baseUrl: string, key: string, fetch: (input: Request) => Promise<Response>) => Promise<Json>
  }
  const seen = await flow.demoFlow(fx.server.url, fx.ws.key.key, fetchWithCa)

  assert.equal(seen.sync.status, 200)
  assert.equal(seen.sync.contentType, 'application/pdf')
  assert.equal(seen.sync.magic, '%PDF-')
  assert.match(seen.sync.pageCount, /^[1-9]\d*$/, 'X-Page-Count')

  assert.equal(seen.queued.status, 202)
  assert.equal(seen.queued.location, seen.queued.job.statusUrl)
  assert.equal(seen.job.status, 'succeeded')
  assert.equal(seen.document.status, 200)
  assert.equal(seen.document.contentType, 'application/pdf')
  assert.equal(seen.document.bytes, seen.job.outputBytes)

  const codes = seen.templates.data.map((t: Json) => t.code)
  for (const code of ['invoice', 'sales-report', 'shipping-label']) assert.ok(codes.includes(code), code)
  assert.equal(seen.dataset.dataset, 'lines')
  assert.equal(seen.dataset.rowCount, 5)
  assert.equal(seen.dataset.truncated, true)

  assert.equal(seen.missing.status, 404)
  assert.equal(seen.missing.errorCode, 'TEMPLATE_NOT_FOUND')

  // Each answer is what the document says it is.
  const ajv = new Ajv2020({ strict: false })
  addFormats.default(ajv)
  ajv.addSchema(doc, 'doc')
  const check = (pointer: string, value: unknown): void => {
    const validate = ajv.compile({ $ref: `doc#${pointer}` })
    assert.equal(validate(value), true, `${pointer}: ${JSON.stringify(validate.errors)}`)
  }
  check('/components/schemas/RenderJob', seen.queued.job)
  check('/components/schemas/RenderJob', seen.job)
  check('/components/schemas/TemplatePage', seen.templates)
  check('/components/schemas/DatasetResult', seen.dataset)
  const notFound = '/paths/~1api~1v1~1templates~1{code}/get/responses/404/content/application~1problem+json/schema'
  check(notFound, seen.missing.body)
})
