// The studio in a real browser (issue 36): `bin/svc studio` on the demo invoice of a demo
// workspace, Debian's chromium via playwright-core, ONE browser session for every scenario (the
// steps build on each other: edit, break, fix, real rows, a failed render, publish). The API's
// own checks (token, Host, Origin, the published event) are studio-api's HTTP tests.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { createDb } from '../../../server/store/db.js'
import { projectRoot } from '../../../server/util/paths.js'
import { serverUrl } from '../../helpers/db.js'
import { previewText, replaceInEditor, waitForPreviewText } from './page-driver.js'
import { demoWorkspace, launchChromium, startStudio, type DemoWorkspace, type StudioProcess } from './studio-session.js'

let demo: DemoWorkspace
let studio: StudioProcess
let browser: Browser
let page: Page
const pageErrors: string[] = []
/** The development database's first invoice, once the dataset step has read it. */
let devInvoiceId = 0

/** What the page shows when a step fails: its status, problems and error panes, for the report. */
async function explained (step: () => Promise<void>): Promise<void> {
  try { await step() } catch (e) {
    const read = async (id: string): Promise<string> => await page.locator(`[data-testid=${id}]`).innerText().catch(() => '?')
    const panes = `status: ${await read('status')}\nproblems: ${await read('problems')}\nerror: ${await read('error')}`
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- the page:\n${panes}`, { cause: e })
  }
}

/** 1-based line of the first `needle` in `text`. */
const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length

before(async () => {
  demo = await demoWorkspace()
  studio = await startStudio(['--template', 'invoice', '--workspace', demo.workspaceId,
    '--data', join(projectRoot, 'examples', 'data', 'invoice.json')], demo.env)
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.goto(studio.url)
})

after(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await browser?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await studio?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset if before() failed
  await demo?.drop()
})

test('the studio page: edit → preview, error at its line → cleared, dataset rows, a render error, publish', async (t) => {
  // The line numbers below are counted in what the editor holds: the session's text, indented
  // by the page when it comes as one compact line (a workspace's published definition).
  const session = await page.evaluate(async () => await (await fetch('api/session')).json() as { templateText: string })
  const shown = session.templateText.includes('\n')
    ? session.templateText
    : JSON.stringify(JSON.parse(session.templateText), null, 2)
  await waitForPreviewText(page, 'INV-2024-0042')

  await t.test('typing into a text element changes the preview (read from the text layer)', async () => await explained(async () => {
    assert.ok(!(await previewText(page)).includes('Invoice recipient'))
    await replaceInEditor(page, 'Bill to', 'Invoice recipient')
    await waitForPreviewText(page, 'Invoice recipient')
    assert.ok(!(await previewText(page)).includes('Bill to'))
  }))

  await t.test('an unknown field shows at its line with the suggestion, and clears when fixed', async () => await explained(async () => {
    // A name the template uses once: the editor's search finds it wherever the cursor is.
    const line = lineOf(shown, 'header.customer_address')
    await replaceInEditor(page, 'header.customer_address', 'header.customer_adress')
    const problem = page.locator(`[data-testid=problems] li.error[data-line="${line}"]`)
    await problem.waitFor({ timeout: 30_000 })
    assert.match(await problem.innerText(), /customer_adress/)
    assert.match(await problem.innerText(), /did you mean header\.customer_address\?/)
    // The editor marks the same place: a lint range over the broken expression, with the suggestion.
    const range = page.locator('.cm-lintRange-error', { hasText: 'customer_adress' })
    await range.first().waitFor({ timeout: 30_000 })
    await replaceInEditor(page, 'customer_adress', 'customer_address')
    await page.locator('[data-testid=problems][data-errors="0"]').waitFor({ timeout: 30_000 })
    assert.equal(await range.count(), 0)
  }))

  await t.test('the development dataset execution shows real rows', async () => await explained(async () => {
    const admin = createDb(`${serverUrl()}/mysql`, { connectionLimit: 1 })
    const [rows] = await admin.query(`SELECT i.id, i.number, c.name FROM \`${demo.devDatabase}\`.invoices i
      JOIN \`${demo.devDatabase}\`.customers c ON c.id = i.customer_id ORDER BY i.id LIMIT 1`) as unknown as
      [Array<{ id: number, number: string, name: string }>]
    await admin.end()
    const first = rows[0]
    assert.ok(first !== undefined && first.number !== 'INV-2024-0042')
    devInvoiceId = first.id
    await page.locator('#params input[name=invoiceId]').fill(String(first.id))
    await page.locator('[data-testid=data]').selectOption('dataset:development')
    await waitForPreviewText(page, first.number)
    assert.ok((await previewText(page)).includes(first.name))
    assert.ok(!(await previewText(page)).includes('INV-2024-0042'))
  }))

  await t.test('a render error is shown in the error pane, not swallowed', async () => await explained(async () => {
    const pane = page.locator('[data-testid=error]')
    assert.equal(await pane.isVisible(), false)
    // No invoice 999999: the required `header` dataset returns no row.
    await page.locator('#params input[name=invoiceId]').fill('999999')
    await pane.waitFor({ state: 'visible', timeout: 30_000 })
    // The problem as the API gives it (server/datasources): its errorCode, detail and errors by path.
    assert.match(await pane.innerText(), /^DATASET_FAILED: .*"header" is required and returned no row/)
    assert.match(await pane.innerText(), /^header: required: the query returned no row$/m)
    assert.equal(await page.locator('[data-testid=status]').innerText(), 'render failed')
  }))

  await t.test('publish shows the new version', async () => await explained(async () => {
    await page.locator('#params input[name=invoiceId]').fill(String(devInvoiceId))
    await page.locator('[data-testid=error]').waitFor({ state: 'hidden', timeout: 30_000 })
    await page.locator('[data-testid=note]').fill('from the studio test')
    await page.locator('[data-testid=publish]').click()
    const version = page.locator('[data-testid=version]')
    await version.filter({ hasText: /v2/ }).waitFor({ timeout: 30_000 })
    assert.match(await version.innerText(), /invoice v2 \(was v1\)/)
    // Every run takes the screenshot (dist/docs/studio.png); docs/studio.png, the one docs/studio.md
    // shows, is replaced only when asked (SVC_UPDATE_REFERENCES=1), so a test run leaves the tree clean.
    const shot = await page.screenshot({ path: join(projectRoot, 'dist', 'docs', 'studio.png') })
    if (process.env.SVC_UPDATE_REFERENCES === '1') writeFileSync(join(projectRoot, 'docs', 'studio.png'), shot)
  }))

  assert.deepEqual(pageErrors, [])
})

// The same browser, a second page: the studio on a label template FILE (file mode): PNG previews
// at the dpi chosen in the page, and Save writing the edited text back to the file.
test('a label file in the studio: PNGs at the chosen dpi, and Save writes the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-studio-label-'))
  const file = join(dir, 'shipping-label.json')
  await copyFile(join(projectRoot, 'examples', 'templates', 'shipping-label.json'), file)
  const labels = await startStudio([file, '--data', join(projectRoot, 'examples', 'data', 'shipping-label.json')], {})
  const p = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
  p.on('pageerror', (e) => pageErrors.push(e.message))
  try {
    await p.goto(labels.url)
    /** Each label's width in pixels, once every label the preview shows is at `dpi` and decoded. */
    const widthsAt = async (dpi: number): Promise<number[]> => {
      // A function, not a string: the page's Content-Security-Policy refuses eval.
      const widths = await p.waitForFunction((d: number) => {
        type Img = { alt: string, complete: boolean, naturalWidth: number }
        const doc = (globalThis as unknown as { document: { querySelectorAll (s: string): Iterable<Img> } }).document
        const imgs = [...doc.querySelectorAll('[data-testid=preview] img')]
        const ready = imgs.length > 0 && imgs.every((i) => i.alt.endsWith(` at ${d} dpi`) && i.complete && i.naturalWidth > 0)
        return ready ? imgs.map((i) => i.naturalWidth) : null
      }, dpi, { timeout: 30_000 })
      return await widths.jsonValue() as number[]
    }
    // 4 in wide: the PNG renderer works in dots per mm (8 at 203 dpi, the template's own; 12 at
    // 300) and rounds up, so 101.6 mm is 813 and 1,220 pixels.
    const at203 = await widthsAt(203)
    assert.ok(at203.length >= 2, `${at203.length} labels`)
    assert.deepEqual(new Set(at203), new Set([813]))
    await p.locator('[data-testid=dpi]').selectOption('300')
    assert.deepEqual(new Set(await widthsAt(300)), new Set([1220]))

    await replaceInEditor(p, 'SHIP TO:', 'DELIVER TO:')
    await p.locator('[data-testid=save]').click()
    // The file, not the status line (a render finishing after the click may write over it).
    let saved = ''
    for (let i = 0; i < 300 && !saved.includes('DELIVER TO:'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      saved = readFileSync(file, 'utf8')
    }
    assert.ok(saved.includes('^FDDELIVER TO:^FS') && !saved.includes('SHIP TO:'), 'the edit is in the file')
  } finally {
    await p.close()
    await labels.stop()
    await rm(dir, { recursive: true, force: true })
  }
  assert.deepEqual(pageErrors, [])
})
