// The preview: PDF pages drawn by pdf.js into canvases with a text layer over each (selectable,
// and what a test reads), labels as <img> PNGs. A new render is built off-screen and swapped in
// whole, so the pane never shows half of one render and half of the next.
import { GlobalWorkerOptions, PDFWorker, TextLayer, getDocument } from 'pdfjs-dist'
import type { RenderResponse } from '../contract.js'
import { fromBase64 } from './api.js'

// The worker is bundled beside app.js (no CDN): resolved against the page, under /TOKEN/.
GlobalWorkerOptions.workerSrc = new URL('assets/pdf.worker.mjs', document.baseURI).href
// One worker for the page's life: without it every getDocument() starts (and destroy() ends) a
// worker of its own, loading the 1.2 MB worker module again on each keystroke's render.
let worker: PDFWorker | null = null

/** CSS pixels per PDF point in the pane (A4 ≈ 595 pt → ~640 px wide). */
const SCALE = 1.075

/** Draws one PDF into `into`; resolves once every page's canvas and text layer are painted. */
async function drawPdf (bytes: Uint8Array, into: HTMLElement, stale: () => boolean): Promise<void> {
  // isEvalSupported: the page's CSP forbids eval, so pdf.js must not even try it.
  worker ??= new PDFWorker()
  const doc = await getDocument({ data: bytes, isEvalSupported: false, worker }).promise
  try {
    for (let n = 1; n <= doc.numPages && !stale(); n++) {
      const page = await doc.getPage(n)
      const viewport = page.getViewport({ scale: SCALE * devicePixelRatio })
      const cssViewport = page.getViewport({ scale: SCALE })
      const box = document.createElement('div')
      box.className = 'page'
      box.style.setProperty('--total-scale-factor', String(SCALE))
      box.style.setProperty('--scale-round-x', '1px')
      box.style.setProperty('--scale-round-y', '1px')
      box.style.width = `${cssViewport.width}px`
      box.style.height = `${cssViewport.height}px`
      const canvas = document.createElement('canvas')
      canvas.width = Math.ceil(viewport.width)
      canvas.height = Math.ceil(viewport.height)
      const text = document.createElement('div')
      text.className = 'textLayer'
      text.dataset.testid = 'preview-text'
      box.append(canvas, text)
      into.append(box)
      await page.render({ canvas, viewport }).promise
      await new TextLayer({ textContentSource: page.streamTextContent(), container: text, viewport: cssViewport })
        .render()
    }
  } finally {
    await doc.destroy()
  }
}

function drawLabels (pngs: string[], dpi: number | undefined, into: HTMLElement): Promise<void[]> {
  return Promise.all(pngs.map(async (b64, i) => {
    const img = document.createElement('img')
    img.alt = `label ${i + 1}${dpi === undefined ? '' : ` at ${dpi} dpi`}`
    img.className = 'label'
    img.src = `data:image/png;base64,${b64}`
    into.append(img)
    await img.decode()
  }))
}

export class Preview {
  private generation = 0

  constructor (private readonly pane: HTMLElement) {}

  /**
   * Shows `result`, replacing what is there once it is fully painted. A later show() makes this
   * one stale: it stops drawing and never swaps in. Resolves true when this result was shown.
   */
  async show (result: RenderResponse, dpi?: number): Promise<boolean> {
    const mine = ++this.generation
    const stale = (): boolean => mine !== this.generation
    const next = document.createElement('div')
    next.className = 'pages'
    if (result.pdf !== undefined) await drawPdf(fromBase64(result.pdf), next, stale)
    if (result.pngs !== undefined) await drawLabels(result.pngs, dpi, next)
    if (stale()) return false
    this.pane.replaceChildren(next)
    // A counter the tests and the benchmark wait on: one step per painted render.
    this.pane.dataset.painted = String(mine)
    return true
  }
}
