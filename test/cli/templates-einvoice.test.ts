// `svc templates preview --xml` and `svc templates validate` on an e-invoice template: the real
// bin/svc in a child process (both commands are local: no server, no database).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { svc as runSvc, type CliResult } from './foundation-helpers.js'
import { einvoiceTemplate, invoiceData, MAPPING } from '../engine/einvoice/fixtures.js'

let home: string

before(async () => { home = await mkdtemp(join(tmpdir(), 'svc-cli-einvoice-')) })
after(async () => { await rm(home, { recursive: true, force: true }) })

// The project's CLI runner (foundation-helpers.ts), with this file's home.
const svc = async (args: string[]): Promise<CliResult> => await runSvc(args, { SVC_HOME: home, SVC_LOG_LEVEL: 'silent' })

test('preview --xml writes the XML the PDF embeds', async () => {
  const tpl = join(home, 'einvoice.json')
  const data = join(home, 'data.json')
  await writeFile(tpl, JSON.stringify(einvoiceTemplate()))
  await writeFile(data, JSON.stringify(invoiceData()))
  const pdf = join(home, 'out.pdf')
  const xml = join(home, 'out.xml')
  const r = await svc(['templates', 'preview', tpl, '--data', data, '-o', pdf, '--xml', xml])
  assert.equal(r.code, 0, r.stderr)
  const written = await readFile(xml, 'utf8')
  assert.match(written, /<ram:GrandTotalAmount>277\.69<\/ram:GrandTotalAmount>/)
  execFileSync('pdfdetach', ['-save', '1', '-o', join(home, 'embedded.xml'), pdf])
  assert.equal(await readFile(join(home, 'embedded.xml'), 'utf8'), written)
})

test('validate reports the e-invoice mapping\'s problems by JSON path and BT number', async () => {
  const mapping = structuredClone(MAPPING)
  Reflect.deleteProperty(mapping.seller as Record<string, unknown>, 'name')
  const tpl = join(home, 'broken.json')
  await writeFile(tpl, JSON.stringify(einvoiceTemplate(mapping)))
  const r = await svc(['templates', 'validate', tpl])
  assert.notEqual(r.code, 0)
  assert.match(r.stdout + r.stderr, /\/document\/einvoice\/seller\/name.*BT-27 Seller name is required/)
})
