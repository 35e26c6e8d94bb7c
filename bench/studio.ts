// Studio latency benchmark (issue 36; not a test): `node dist/bench/studio.js [--edits N]`, or
// `make bench-studio`. Keystroke to painted preview for the demo invoice in Debian's chromium,
// p95 over N one-key edits, measured in the same run as a bare engine render of the same
// template (engine/render.ts renderResult: compile + render, as each edit needs). Target: the
// studio's overhead, p95(studio) − p95(bare), ≤ 200 ms. Prints one JSON line; the figures go
// to bench/RESULTS.md ("Studio latency") by hand, with the machine's state.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderResult } from '../engine/render.js'
import type { DatasetValues } from '../engine/types.js'
import { launchChromium, startStudio } from '../test/studio/web/studio-session.js'
import { replaceInEditor, waitForPreviewText } from '../test/studio/web/page-driver.js'
import { load1, median } from './stats.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const LIMITS = { maxPages: 1000, maxBytes: 1e9, maxRows: 1e6, maxLabels: 1e5 }
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name)
  return i < 0 ? fallback : Number(process.argv[i + 1])
}
const EDITS = arg('--edits', 60)
const WARMUP = 4

/** The p-th percentile (nearest rank) of `xs`. */
function percentile (xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN
}
const summary = (xs: readonly number[]): { p50: number, p95: number, max: number } =>
  ({ p50: +median(xs).toFixed(1), p95: +percentile(xs, 95).toFixed(1), max: +Math.max(...xs).toFixed(1) })

// In the page: the time of the last keydown (capture phase, before CodeMirror sees it) and the
// preview's paint counter at that moment; a predicate polled on every animation frame answers
// the milliseconds since that keydown once the counter moved (the next render is on screen).
// Installed as a string through the debugger protocol (the page's CSP forbids the eval a string
// predicate would need). That the paint shows the edit is checked after, untimed, on the text.
const INSTALL = `
  const pane = document.querySelector('[data-testid=preview]')
  document.addEventListener('keydown', () => { window.__keyAt = performance.now(); window.__before = pane.dataset.painted }, true)
  window.__painted = () => pane.dataset.painted !== window.__before ? performance.now() - window.__keyAt : false`
const painted = (): number | false => (globalThis as unknown as { __painted: () => number | false }).__painted()
/** The last POST api/render as the page's resource timing saw it: request to last byte (ms). */
const lastFetch = (): number => {
  const entries = performance.getEntriesByType('resource')
  return entries.filter((e) => e.name.endsWith('/api/render')).at(-1)?.duration ?? NaN
}
/** A user's pause before each edit, so each keystroke is one edit (not part of a burst). */
const PAUSE_MS = 400

async function main (): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-studio-'))
  const file = join(dir, 'invoice.json')
  await copyFile(join(root, 'examples/templates/invoice.json'), file)
  const dataFile = join(root, 'examples/data/invoice.json')
  const studio = await startStudio([file, '--data', dataFile], { SVC_HOME: join(dir, 'home') })
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
    await page.goto(studio.url)
    await waitForPreviewText(page, 'Bill to')
    await page.evaluate(INSTALL)
    // The cursor goes to the end of "Bill to"; each edit is ONE key: add "Z", then take it away.
    await replaceInEditor(page, 'Bill to', 'Bill to')
    const definition = await readFile(file, 'utf8')
    const datasets = JSON.parse(await readFile(dataFile, 'utf8')) as DatasetValues
    const studioMs: number[] = []
    const bareMs: number[] = []
    const fetchMs: number[] = []
    // The first WARMUP edits are not counted: both sides load fonts and JIT-compile on them.
    for (let i = 0; i < WARMUP + EDITS; i++) {
      const add = i % 2 === 0
      await page.waitForTimeout(PAUSE_MS)
      await page.keyboard.press(add ? 'Z' : 'Backspace')
      const handle = await page.waitForFunction(painted, undefined, { polling: 'raf', timeout: 30_000 })
      const ms = await handle.jsonValue() as number
      await waitForPreviewText(page, add ? 'Bill toZ' : 'Bill to')
      if (!add) await page.locator('[data-testid=preview-text]', { hasText: 'Bill toZ' }).waitFor({ state: 'detached' })
      const fetched = await page.evaluate(lastFetch)
      // The bare render, interleaved so both see the same machine: a new version key each time,
      // so it compiles as the studio's render of an edited text must.
      const text = definition.replace('"Bill to"', add ? '"Bill toZ"' : '"Bill to"')
      const t0 = performance.now()
      const r = renderResult({
        versionKey: `bench-studio:${i}`,
        definition: text,
        parameters: { invoiceId: 1 },
        context: { language: 'en' },
        datasets,
        limits: LIMITS
      })
      const bare = performance.now() - t0
      if (i >= WARMUP) { studioMs.push(ms); bareMs.push(bare); fetchMs.push(fetched) }
      if (!r.ok) throw new Error(`bare render failed: ${r.message}`)
    }
    const s = summary(studioMs)
    const b = summary(bareMs)
    console.log(JSON.stringify({
      edits: EDITS,
      load1: +load1().toFixed(2),
      studio: s,
      // Of the studio's time: the render request (HTTP, JSON, the pool's render); the rest is
      // the page (CodeMirror's update, pdf.js parsing and painting, the text layer).
      renderRequest: summary(fetchMs),
      bare: b,
      overheadP95: +(s.p95 - b.p95).toFixed(1),
      targetMs: 200
    }))
  } finally {
    await browser.close()
    await studio.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
