// `svc templates …` end to end: the real bin/svc in a child process, a real database, real files.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RowDataPacket } from 'mysql2/promise'
import { createTestDatabase } from '../helpers/db.js'
import type { TestDatabase } from '../helpers/db.js'
import { exampleAs } from '../server/templates/helpers.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const example = (kind: 'templates' | 'data', name: string): string => join(root, 'examples', kind, `${name}.json`)

let database: TestDatabase
let home: string
const masterKey = randomBytes(32).toString('hex')

before(async () => {
  database = await createTestDatabase('tplcli')
  home = await mkdtemp(join(tmpdir(), 'svc-cli-templates-'))
})
after(async () => {
  await database.drop()
  await rm(home, { recursive: true, force: true })
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
interface Run { code: number, json: any, stdout: string, stderr: string }

async function svc (args: string[], options: { json?: boolean } = {}): Promise<Run> {
  const argv = [join(root, 'bin', 'svc'), ...(options.json === false ? [] : ['--json']), ...args]
  return await new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: home, env: { ...process.env, SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: masterKey, SVC_LOG_LEVEL: 'silent' } }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1
      let json: unknown
      try { json = JSON.parse(stdout) } catch { json = undefined }
      resolve({ code, json, stdout, stderr })
    })
  })
}

async function workspace (): Promise<string> {
  const r = await svc(['workspaces', 'create', '--name', 'cli templates'])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  return r.json.id
}

test('validate: a valid file exits 0; an invalid one exits 1 with every error keyed by JSON path', async () => {
  const ok = await svc(['templates', 'validate', example('templates', 'invoice')])
  assert.equal(ok.code, 0, ok.stderr)
  assert.deepEqual(ok.json, { valid: true, code: 'invoice', format: 'document', parameters: 1, datasets: 3 })

  const file = join(home, 'broken.json')
  await writeFile(file, JSON.stringify(exampleAs('invoice', 'Bad Code', (t) => { t.parameters[0].type = 'money'; delete t.document })))
  const bad = await svc(['templates', 'validate', file])
  assert.equal(bad.code, 1)
  assert.equal(bad.json.errorCode, 'TEMPLATE_INVALID')
  assert.ok(bad.json.errors['/code'] !== undefined, JSON.stringify(bad.json.errors))
  assert.ok(bad.json.errors['/parameters/0/type'] !== undefined)
  assert.ok(bad.json.errors['/document'] !== undefined)

  const text = await svc(['templates', 'validate', file], { json: false })
  assert.equal(text.code, 1)
  assert.match(text.stderr, /^\/parameters\/0\/type: /m)
  assert.match(text.stderr, /error: TEMPLATE_INVALID/)

  const missing = await svc(['templates', 'validate', join(home, 'nope.json')])
  assert.equal(missing.code, 2)
})

test('validate: a field typo names path, expression and suggestion; a dataset without fields warns; a syntax error shows line and caret', async () => {
  const typo = join(home, 'typo.json')
  await writeFile(typo, JSON.stringify(exampleAs('invoice', 'typo', (t) => { t.document.body[0].text = '{{ header.numbr }}' }), null, 2))
  const bad = await svc(['templates', 'validate', typo], { json: false })
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^\/document\/body\/0\/text: header\.numbr: 'numbr' is not a field of dataset 'header'; did you mean header\.number\? \(in \{\{ header\.numbr \}\}\)$/m)

  const optOut = join(home, 'opt-out.json')
  await writeFile(optOut, JSON.stringify(exampleAs('invoice', 'opt-out', (t) => { t.datasets[1].fields = [] })))
  const warned = await svc(['templates', 'validate', optOut])
  assert.equal(warned.code, 0, warned.stderr)
  assert.deepEqual(warned.json.warnings, [{ path: '/datasets/1/fields', message: "dataset 'lines' declares no fields: paths into its rows are not checked" }])
  const text = await svc(['templates', 'validate', optOut], { json: false })
  assert.match(text.stderr, /^warning: \/datasets\/1\/fields: dataset 'lines' declares no fields/m)

  const broken = join(home, 'syntax.json')
  await writeFile(broken, '{\n  "code": "x",\n  "format": "document"\n  "document": {}\n}\n')
  const syntax = await svc(['templates', 'validate', broken], { json: false })
  assert.equal(syntax.code, 1)
  assert.match(syntax.stderr, /^\/: is not valid JSON: line 4, column 3: expected ',' or '}', found "\\""\n {4}"document": \{\}\n {4}\^$/m)
})

test('publish prints code, version and previousVersion; list, disable and enable', async () => {
  const ws = await workspace()
  const first = await svc(['templates', 'publish', example('templates', 'invoice'), '--workspace', ws, '--note', 'first cut', '--by', 'alice'])
  assert.equal(first.code, 0, first.stderr + first.stdout)
  assert.equal(first.json.code, 'invoice')
  assert.equal(first.json.version, 1)
  assert.equal(first.json.previousVersion, null)
  const second = await svc(['templates', 'publish', example('templates', 'invoice'), '--workspace', ws])
  assert.deepEqual([second.json.version, second.json.previousVersion], [2, 1])
  assert.equal((await svc(['templates', 'publish', example('templates', 'shipping-label'), '--workspace', ws])).json.version, 1)
  const [[stored]] = await database.db.query<RowDataPacket[]>('SELECT v.note, v.published_by FROM template_versions v JOIN templates t ON t.id = v.template_id WHERE t.workspace_id = ? AND t.code = ? AND v.version = 1', [ws, 'invoice'])
  assert.deepEqual({ ...stored }, { note: 'first cut', published_by: 'alice' })

  const disabled = await svc(['templates', 'disable', 'invoice', '--workspace', ws])
  assert.deepEqual(disabled.json, { code: 'invoice', disabled: true })
  const list = await svc(['templates', 'list', '--workspace', ws])
  assert.equal(list.code, 0, list.stderr)
  assert.deepEqual(
    list.json.map((t: { code: string, format: string, version: number, disabled: boolean }) => [
      t.code,
      t.format,
      t.version,
      t.disabled
    ]),
    [
      ['invoice', 'document', 2, true],
      ['shipping-label', 'label', 1, false]
    ]
  )
  assert.ok(list.json.every((t: { updatedAt: string }) => !Number.isNaN(Date.parse(t.updatedAt))))
  const text = await svc(['templates', 'list', '--workspace', ws], { json: false })
  assert.match(text.stdout, /^CODE\s+FORMAT\s+VERSION\s+DISABLED\s+UPDATED/)
  assert.match(text.stdout, /invoice\s+document\s+2\s+true/)
  assert.deepEqual((await svc(['templates', 'enable', 'invoice', '--workspace', ws])).json, { code: 'invoice', disabled: false })

  const unknown = await svc(['templates', 'disable', 'nope', '--workspace', ws])
  assert.equal(unknown.code, 1)
  assert.equal(unknown.json.errorCode, 'TEMPLATE_NOT_FOUND')
  const noWs = await svc(['templates', 'list', '--workspace', '00000000-0000-0000-0000-000000000000'])
  assert.equal(noWs.json.errorCode, 'WORKSPACE_NOT_FOUND')
})

test('preview: the example invoice to PDF, checked with pdfinfo and pdftotext', async () => {
  const out = join(home, 'invoice.pdf')
  const r = await svc(['templates', 'preview', example('templates', 'invoice'), '--data', example('data', 'invoice'), '--parameters', '{"invoiceId":42}', '--context', '{"language":"en"}', '-o', out])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  assert.equal(r.json.format, 'pdf')
  assert.equal(r.json.pageCount, 1)
  const pdf = await readFile(out)
  assert.equal(r.json.bytes, pdf.length)
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-')
  assert.match(execFileSync('pdfinfo', [out], { encoding: 'utf8' }), /^Pages:\s+1$/m)
  const rows = JSON.parse(await readFile(example('data', 'invoice'), 'utf8'))
  const text = execFileSync('pdftotext', ['-layout', out, '-'], { encoding: 'utf8' })
  assert.ok(text.includes(rows.header.number), 'the invoice number from the data file')
  assert.ok(text.includes(rows.lines[1].description), 'a line item from the data file')

  const png = join(home, 'invoice.png')
  const p = await svc(['templates', 'preview', example('templates', 'invoice'), '--data', example('data', 'invoice'), '--parameters', '{"invoiceId":42}', '-o', png])
  assert.equal(p.code, 0, p.stderr + p.stdout)
  assert.deepEqual([...(await readFile(png)).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
})

test('preview: a character no font has is reported as a warning (JSON and text output)', async () => {
  const file = join(home, 'emoji.json')
  await writeFile(file, JSON.stringify({ code: 'emoji', format: 'document', document: { body: [{ text: 'A \u{1FAE8} B' }] } }))
  const out = join(home, 'emoji.pdf')
  const r = await svc(['templates', 'preview', file, '-o', out])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  assert.deepEqual(r.json.warnings, ['1 character(s) no font has, drawn as boxes: U+1FAE8'])
  const t = await svc(['templates', 'preview', file, '-o', out], { json: false })
  assert.match(t.stdout, /warning: 1 character\(s\) no font has, drawn as boxes: U\+1FAE8/)
})

test('preview: the example label to .zpl and .png', async () => {
  const data = JSON.parse(await readFile(example('data', 'shipping-label'), 'utf8')) as { parcels: Array<{ tracking_no: string, qty: number }> }
  const zplFile = join(home, 'labels.zpl')
  const r = await svc(['templates', 'preview', example('templates', 'shipping-label'), '--data', example('data', 'shipping-label'), '--parameters', '{"batchId":7}', '-o', zplFile])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  assert.equal(r.json.format, 'zpl')
  assert.equal(r.json.labelCount, data.parcels.reduce((n, p) => n + p.qty, 0))
  const zpl = await readFile(zplFile, 'utf8')
  assert.ok(zpl.startsWith('^XA'))
  assert.equal(zpl.match(/\^XA/g)?.length, data.parcels.length)
  assert.ok(zpl.includes(data.parcels[0]!.tracking_no))

  const pngFile = join(home, 'label.png')
  const p = await svc(['templates', 'preview', example('templates', 'shipping-label'), '--data', example('data', 'shipping-label'), '--parameters', '{"batchId":7}', '-o', pngFile])
  assert.equal(p.code, 0, p.stderr + p.stdout)
  const png = await readFile(pngFile)
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  // IHDR width: 4 in at 203 dpi (8 dots/mm) ≈ 813 px.
  assert.ok(Math.abs(png.readUInt32BE(16) - 813) <= 2, `width ${png.readUInt32BE(16)}`)
})

test('preview of a label template draws every label: one PNG each with %d, one PDF page each', async () => {
  const data = JSON.parse(await readFile(example('data', 'shipping-label'), 'utf8')) as { parcels: Array<{ tracking_no: string }> }
  const args = ['templates', 'preview', example('templates', 'shipping-label'), '--data', example('data', 'shipping-label'), '--parameters', '{"batchId":7}']
  const each = await svc([...args, '-o', join(home, 'parcel-%d.png')])
  assert.equal(each.code, 0, each.stderr + each.stdout)
  const files = data.parcels.map((_p, i) => join(home, `parcel-${i + 1}.png`))
  assert.deepEqual(each.json.files, files)
  const pngs = await Promise.all(files.map(async (f) => await readFile(f)))
  for (const png of pngs) assert.ok(Math.abs(png.readUInt32BE(16) - 813) <= 2, `width ${png.readUInt32BE(16)}`)
  assert.equal(new Set(pngs.map((p) => p.toString('base64'))).size, pngs.length, 'every label is a different picture')
  assert.equal(each.json.bytes, pngs.reduce((n, p) => n + p.length, 0))

  const pdf = join(home, 'parcels.pdf')
  const r = await svc([...args, '-o', pdf])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })
  assert.match(info, new RegExp(`^Pages:\\s+${data.parcels.length}$`, 'm'))
  assert.match(info, /^Page size:\s+288 x 432 pts/m)
  // Each page is its own label: the pages drawn back differ.
  const dir = await mkdtemp(join(tmpdir(), 'svc-label-pages-'))
  try {
    execFileSync('pdftoppm', ['-png', '-r', '30', pdf, join(dir, 'p')])
    const pages = await Promise.all(data.parcels.map(async (_p, i) => await readFile(join(dir, `p-${i + 1}.png`))))
    assert.equal(new Set(pages.map((p) => p.toString('base64'))).size, data.parcels.length)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('preview --watch renders again on every save of the template and of the data file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-watch-'))
  const tpl = join(dir, 'invoice.json')
  const dataFile = join(dir, 'data.json')
  const out = join(dir, 'out.pdf')
  const template = exampleAs('invoice', 'invoice', (t) => { t.document.body.unshift({ text: 'Edition one' }) })
  const rows = JSON.parse(await readFile(example('data', 'invoice'), 'utf8'))
  await writeFile(tpl, JSON.stringify(template))
  await writeFile(dataFile, JSON.stringify(rows))
  const child = spawn(process.execPath, [join(root, 'bin', 'svc'), 'templates', 'preview', tpl, '--data', dataFile, '--parameters', '{"invoiceId":1}', '-o', out, '--watch'],
    { cwd: home, env: { ...process.env, SVC_HOME: home, SVC_DATABASE_URL: database.url, SVC_MASTER_KEY: masterKey, SVC_LOG_LEVEL: 'silent' } })
  const lines: string[] = []
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  let buffered = ''
  const waiters: Array<() => void> = []
  child.stdout.on('data', (c: Buffer) => {
    buffered += c.toString()
    const parts = buffered.split('\n')
    buffered = parts.pop() ?? ''
    lines.push(...parts.filter((l) => l !== ''))
    for (const w of waiters.splice(0)) w()
  })
  /** Waits (at most 30 s) until `n` renders have been reported. */
  const renders = async (n: number): Promise<void> => {
    const deadline = setTimeout(() => { for (const w of waiters.splice(0)) w() }, 30_000)
    try {
      while (lines.length < n) {
        const before = lines.length
        await new Promise<void>((resolve) => { waiters.push(resolve) })
        if (lines.length === before) assert.fail(`no render ${n} within 30 s; stdout ${JSON.stringify(lines)}, stderr ${stderr}`)
      }
    } finally { clearTimeout(deadline) }
  }
  const pdfText = (): string => execFileSync('pdftotext', ['-layout', out, '-'], { encoding: 'utf8' })
  try {
    await renders(1)
    assert.match(lines[0]!, /out\.pdf: \d+ bytes, 1 page\(s\)$/)
    assert.ok(pdfText().includes('Edition one'))

    template.document.body[0].text = 'Edition two'
    await writeFile(tpl, JSON.stringify(template))
    await renders(2)
    assert.ok(pdfText().includes('Edition two'))

    rows.header.number = 'INV-WATCHED-7'
    await writeFile(dataFile, JSON.stringify(rows))
    await renders(3)
    assert.ok(pdfText().includes('INV-WATCHED-7'))

    // A broken save is reported and watching goes on; the next good save renders again.
    await writeFile(tpl, '{ "code": ')
    const reported = Date.now()
    while (!stderr.includes('line 1, column 11') && Date.now() - reported < 30_000) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.match(stderr, /error: TEMPLATE_INVALID: template file is not valid JSON: line 1, column 11/)
    template.document.body[0].text = 'Edition three'
    await writeFile(tpl, JSON.stringify(template))
    await renders(4)
    assert.ok(pdfText().includes('Edition three'))
    assert.equal(child.exitCode, null, 'still watching')
  } finally {
    child.kill('SIGKILL')
    await rm(dir, { recursive: true, force: true })
  }
})

test('preview refuses a wrong output kind, bad parameters and unknown datasets', async () => {
  const label = example('templates', 'shipping-label')
  const mismatch = await svc(['templates', 'preview', example('templates', 'invoice'), '--parameters', '{"invoiceId":1}', '-o', join(home, 'x.zpl')])
  assert.equal(mismatch.code, 1)
  assert.equal(mismatch.json.errorCode, 'FORMAT_MISMATCH')
  const param = await svc(['templates', 'preview', label, '--data', example('data', 'shipping-label'), '--parameters', '{"batchId":"one"}', '-o', join(home, 'x.zpl')])
  assert.equal(param.json.errorCode, 'PARAMETER_INVALID')
  assert.ok(param.json.errors.batchId !== undefined)
  const stray = join(home, 'stray.json')
  await writeFile(stray, JSON.stringify({ parcels: [], extra: [] }))
  const unknown = await svc(['templates', 'preview', label, '--data', stray, '--parameters', '{"batchId":1}', '-o', join(home, 'x.zpl')])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr + unknown.stdout, /"extra" is not a dataset/)
})

test('preview --dpi renders a label at the printer resolution and draws it at that resolution', async () => {
  const base = ['templates', 'preview', example('templates', 'shipping-label'), '--data', example('data', 'shipping-label'), '--parameters', '{"batchId":7}']
  const zplFile = join(home, 'labels-300.zpl')
  const r = await svc([...base, '--dpi', '300', '-o', zplFile])
  assert.equal(r.code, 0, r.stderr + r.stdout)
  assert.match(await readFile(zplFile, 'utf8'), /^\^XA\^CI28\^PW1200\^LL1800\^FO59,59/)
  const pngFile = join(home, 'label-600.png')
  const p = await svc([...base, '--dpi', '600', '-o', pngFile])
  assert.equal(p.code, 0, p.stderr + p.stdout)
  // IHDR width: 4 in at 600 dpi, drawn at the renderer's whole 24 dots/mm ≈ 2439 px.
  assert.ok(Math.abs((await readFile(pngFile)).readUInt32BE(16) - 2439) <= 2)
  const bad = await svc([...base, '--dpi', '250', '-o', zplFile])
  assert.notEqual(bad.code, 0)
  assert.match(bad.stderr + bad.stdout, /--dpi: must be 152, 203, 300 or 600/)
})
