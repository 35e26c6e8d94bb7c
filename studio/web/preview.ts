// The preview: PDF pages drawn by pdf.js into canvases with a text layer over each (selectable,
// and what a test reads), labels as <img> PNGs. A new render is drawn off-screen and swapped in
// whole, so the pane never shows half of one render and half of the next; the text layers follow
// the swap (they are for selecting and reading, and cost as much as the canvases under load).
import { GlobalWorkerOptions, PDFWorker, TextLayer, getDocument, type PDFPageProxy } from 'pdfjs-dist'
import type { RenderResponse } from '../contract.js'
import { fromBase64 } from './api.js'

// The worker is bundled beside app.js (no CDN): resolved against the page, under /TOKEN/.
GlobalWorkerOptions.workerSrc = new URL('assets/pdf.worker.mjs', document.baseURI).href
// One worker for the page's life: without it every getDocument() starts (and destroy() ends) a
// worker of its own, loading the 1.2 MB worker module again on each keystroke's render.
let worker: PDFWorker | null = null

/** CSS pixels per PDF point in the pane (A4 ≈ 595 pt → ~640 px wide). */
const SCALE = 1.075

interface DrawnPage { page: PDFPageProxy, box: HTMLElement }

/** Draws every page's canvas into `into`; the document stays open for the text layers. */
async function drawCanvases (pages: PDFPageProxy[], into: HTMLElement, stale: () => boolean): Promise<DrawnPage[]> {
  const drawn: DrawnPage[] = []
  for (const page of pages) {
    if (stale()) break
    const viewport = page.getViewport({ scale: SCALE * devicePixelRatio })
    const css = page.getViewport({ scale: SCALE })
    const box = document.createElement('div')
    box.className = 'page'
    box.style.width = `${css.width}px`
    box.style.height = `${css.height}px`
    const canvas = document.createElement('canvas')
    canvas.width = Math.ceil(viewport.width)
    canvas.height = Math.ceil(viewport.height)
    box.append(canvas)
    into.append(box)
    await page.render({ canvas, viewport }).promise
    drawn.push({ page, box })
  }
  return drawn
}

/** pdf.js's text layer over one drawn page (its CSS needs the scale as --total-scale-factor). */
async function addTextLayer ({ page, box }: DrawnPage): Promise<void> {
  const text = document.createElement('div')
  text.className = 'textLayer'
  text.dataset.testid = 'preview-text'
  box.style.setProperty('--total-scale-factor', String(SCALE))
  box.style.setProperty('--scale-round-x', '1px')
  box.style.setProperty('--scale-round-y', '1px')
  const viewport = page.getViewport({ scale: SCALE })
  await new TextLayer({ textContentSource: page.streamTextContent(), container: text, viewport }).render()
  box.append(text)
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
   * Shows `result`, replacing what is there once it is drawn. A later show() makes this one
   * stale: it stops drawing and never swaps in. Resolves true when this result was shown (text
   * layers included).
   */
  async show (result: RenderResponse, dpi?: number): Promise<boolean> {
    const mine = ++this.generation
    const stale = (): boolean => mine !== this.generation
    const next = document.createElement('div')
    next.className = 'pages'
    if (result.pngs !== undefined) {
      await drawLabels(result.pngs, dpi, next)
      return this.swap(next, mine)
    }
    if (result.pdf === undefined) return this.swap(next, mine)
    // isEvalSupported: the page's CSP forbids eval, so pdf.js must not even try it.
    worker ??= new PDFWorker()
    const doc = await getDocument({ data: fromBase64(result.pdf), isEvalSupported: false, worker }).promise
    try {
      const pages: PDFPageProxy[] = []
      for (let n = 1; n <= doc.numPages; n++) pages.push(await doc.getPage(n))
      const drawn = await drawCanvases(pages, next, stale)
      if (!this.swap(next, mine)) return false
      for (const d of drawn) if (!stale()) await addTextLayer(d)
      return !stale()
    } finally {
      await doc.destroy()
    }
  }

  /** Puts `next` on screen unless a newer show() began; `data-painted` counts what was shown. */
  private swap (next: HTMLElement, mine: number): boolean {
    if (mine !== this.generation) return false
    this.pane.replaceChildren(next)
    // What the tests and the benchmark wait on: one step per render put on screen.
    this.pane.dataset.painted = String(mine)
    return true
  }
}
