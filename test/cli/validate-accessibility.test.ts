// `svc templates validate` and accessibility (issue 34), the real bin/svc in a child process:
// without PDF/UA-1 the findings are warnings with their JSON paths (exit 0); with it they are
// errors at the same paths (exit 1). Validation needs no database.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { svc as runSvc, type CliResult } from './foundation-helpers.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
let home: string
before(async () => { home = await mkdtemp(join(tmpdir(), 'svc-cli-a11y-')) })
after(async () => { await rm(home, { recursive: true, force: true }) })

// The project's CLI runner (foundation-helpers.ts), with this file's home.
const svc = async (args: string[]): Promise<CliResult> => await runSvc(args, { SVC_HOME: home, SVC_LOG_LEVEL: 'silent' })

/** The example invoice without its title and with an H2 first: two findings. */
async function file (ua: boolean): Promise<string> {
  const t = JSON.parse(await readFile(join(root, 'examples', 'templates', 'invoice.json'), 'utf8')) as {
    document: { info?: unknown, pdf: Record<string, unknown>, body: Array<Record<string, unknown>> }
  }
  delete t.document.info
  t.document.body[0]!.heading = 2
  // (The example itself is PDF/UA-1: without it, the same template with `ua` left out.)
  if (ua) t.document.pdf.ua = 'PDF/UA-1'
  else delete t.document.pdf.ua
  const path = join(home, `invoice-${ua}.json`)
  await writeFile(path, JSON.stringify(t))
  return path
}

const PATHS = ['/document/info/title', '/document/body/0/heading']

test('without PDF/UA-1: valid, with the accessibility warnings at their JSON paths (JSON and text)', async () => {
  const f = await file(false)
  const json = await svc(['--json', 'templates', 'validate', f])
  assert.equal(json.code, 0, json.stderr)
  const out = JSON.parse(json.stdout) as { valid: boolean, warnings: Array<{ path: string, message: string }> }
  assert.equal(out.valid, true)
  assert.deepEqual(out.warnings.map((w) => w.path), PATHS)
  assert.match(out.warnings[1]!.message, /^accessibility: the first heading is H2: it must be H1/)
  const text = await svc(['templates', 'validate', f])
  assert.equal(text.code, 0)
  assert.match(text.stderr, /^warning: \/document\/info\/title: accessibility: a title is required/m)
  assert.match(text.stderr, /^warning: \/document\/body\/0\/heading: accessibility: the first heading is H2/m)
})

test('with PDF/UA-1: invalid, the same findings as errors at the same paths', async () => {
  const text = await svc(['templates', 'validate', await file(true)])
  assert.equal(text.code, 1)
  assert.match(text.stderr, /^\/document\/info\/title: a title is required/m)
  assert.match(text.stderr, /^\/document\/body\/0\/heading: the first heading is H2: it must be H1/m)
})

test('the demo invoice as it is (PDF/A-3a + PDF/UA-1 + Factur-X): valid, no accessibility warnings', async () => {
  const json = await svc(['--json', 'templates', 'validate', join(root, 'examples', 'templates', 'invoice.json')])
  assert.equal(json.code, 0, json.stderr)
  const out = JSON.parse(json.stdout) as { valid: boolean, warnings?: unknown[] }
  assert.equal(out.valid, true)
  assert.equal(out.warnings, undefined)
  const t = JSON.parse(await readFile(join(root, 'examples', 'templates', 'invoice.json'), 'utf8')) as {
    document: { pdf: Record<string, unknown> }
  }
  assert.deepEqual(t.document.pdf, { standard: 'PDF/A-3a', ua: 'PDF/UA-1' })
})
