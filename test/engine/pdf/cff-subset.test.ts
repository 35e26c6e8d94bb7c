// CFF subsets (cff-subset.ts) read back: poppler finds an embedded CID-keyed CFF subset per
// font and the text (ToUnicode), the subset holds exactly the used glyphs plus .notdef and only
// the subroutines they call, and pages render like the reference images. The references were
// rendered from fontkit's CFF subsets (before cff-subset.ts): same pixels within the tolerance.
// SVC_UPDATE_REFERENCES=1 rewrites them (look at them before committing).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { inflateSync } from 'node:zlib'
import { CffSource, itemStart } from '../../../engine/pdf/cff-read.js'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import type { RenderSuccess } from '../../../engine/types.js'
import { input, invoiceDefinition, pdfText, withPdf } from './fixtures.js'
import { decodeGrayPng, diffShare, inkShare, pagePng } from './gray-png.js'
import { itemAt } from '../../helpers/item-at.js'

const REFERENCES = join(import.meta.dirname, '..', '..', '..', '..', 'test', 'engine', 'pdf', 'references')
const CJK = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'
const INCONSOLATA = join(import.meta.dirname, '..', '..', '..', '..', 'node_modules', 'bwip-js', 'fonts',
  'Inconsolata.otf')
const page = { size: [300, 70], orientation: 'landscape', margins: 10 }

function render (document: unknown, assets: Record<string, unknown> = {}): RenderSuccess {
  const def = invoiceDefinition(document, assets)
  return renderPdf(compileDocument(def.document, def), input(def, {}))
}

const fontsOf = (bytes: Uint8Array): string[] =>
  withPdf(bytes, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }))
    .split('\n').slice(2).filter((l) => l !== '')
const lines = (bytes: Uint8Array): string[] => pdfText(bytes).split('\n').map((l) => l.trim()).filter((l) => l !== '')

/** The FontFile3 (/CIDFontType0C) programs of a PDF, by the font name of their descriptor. */
function cffPrograms (bytes: Uint8Array): Map<string, CffSource> {
  const pdf = Buffer.from(bytes)
  const s = pdf.toString('latin1')
  const out = new Map<string, CffSource>()
  for (const m of s.matchAll(/\/FontName \/(\S+)[^>]*?\/FontFile3 (\d+) 0 R/g)) {
    const obj = s.indexOf(`\n${m[2]} 0 obj`) + 1
    const dict = s.slice(obj, s.indexOf('stream', obj))
    assert.match(dict, /\/Subtype \/CIDFontType0C/)
    const start = s.indexOf('stream\n', obj) + 7
    const data = pdf.subarray(start, start + Number(/\/Length (\d+)/.exec(dict)![1]))
    out.set(itemAt(m, 1), new CffSource(dict.includes('/FlateDecode') ? inflateSync(data) : data))
  }
  return out
}

/** The page against a reference image: within the tolerance, and not blank. */
function assertLooksLike (bytes: Uint8Array, name: string): void {
  const png = pagePng(bytes, 100)
  const ref = join(REFERENCES, `${name}.png`)
  if (process.env.SVC_UPDATE_REFERENCES === '1' || !existsSync(ref)) writeFileSync(ref, png)
  const g = decodeGrayPng(png)
  assert.ok(inkShare(g, 0, 0, g.width, g.height) > 0.01, 'the glyphs are drawn')
  const share = diffShare(g, decodeGrayPng(readFileSync(ref)))
  assert.ok(share < 0.005, `${(share * 100).toFixed(2)}% of the pixels differ from ${ref}`)
}

test('Chinese in regular and bold: one embedded CFF subset per font, the text back, the page as the reference', () => {
  const regular = '上海贸易有限公司，南京路100号'
  const bold = '发票总额：人民币'
  const r = render({
    page,
    styles: { b: { font: 'Helvetica-Bold', size: 14 } },
    body: [{ text: regular, size: 12 }, { text: bold, style: 'b' }]
  })
  assert.equal(r.warnings, undefined)
  assert.deepEqual(lines(r.bytes), [regular, bold])
  const cjk = fontsOf(r.bytes).filter((l) => l.includes('NotoSansCJK'))
  assert.equal(cjk.length, 2, cjk.join('\n'))
  const faces = [['NotoSansCJKsc-Regular', itemAt(cjk, 0)], ['NotoSansCJKsc-Bold', itemAt(cjk, 1)]] as const
  for (const [font, l] of faces) {
    assert.match(l, new RegExp(`^[A-Z]{6}\\+${font}\\s+CID Type 0C\\s+Identity-H\\s+yes yes yes`))
  }
  assertLooksLike(r.bytes, 'cjk-regular-bold')
})

test('a CJK subset holds the used glyphs plus .notdef, and only the subroutines they call', () => {
  const text = '上海上海贸易贸易' // 4 different characters, each twice
  const r = render({ page, body: [{ text, size: 12 }] })
  const programs = cffPrograms(r.bytes)
  assert.equal(programs.size, 1)
  const [name, cff] = itemAt([...programs], 0)
  assert.match(name, /\+NotoSansCJKsc-Regular$/)
  assert.equal(cff.charStrings.count, 5)
  assert.ok(cff.cid)
  // The font's own INDEXes: 1,246 global subroutines, up to 28,516 local ones per Font DICT.
  const full = new CffSource(fontTable(CJK, 'CFF '))
  assert.ok(cff.gsubrs.count > 0 && cff.gsubrs.count < 50, `${cff.gsubrs.count} global subroutines`)
  assert.ok(full.gsubrs.count > 1000)
  assert.ok(cff.fds.length <= 5)
  for (const fd of cff.fds) assert.ok((fd.subrs?.count ?? 0) < 50, `${fd.subrs?.count} local subroutines`)
  // One glyph more, one charstring more.
  const more = cffPrograms(render({ page, body: [{ text: text + '司', size: 12 }] }).bytes)
  assert.equal(itemAt([...more.values()], 0).charStrings.count, 6)
})

test('Japanese from the JP face of the collection: its own glyph forms, embedded, the text back', () => {
  const text = '直通の骨董店、東京都千代田区'
  const doc = (font: string): unknown =>
    ({ page, styles: { s: { font: [font] } }, body: [{ text, size: 12, style: 's' }] })
  const jp = render(doc('Noto Sans CJK JP'))
  assert.equal(jp.warnings, undefined)
  assert.deepEqual(lines(jp.bytes), [text])
  const f = fontsOf(jp.bytes)
  assert.equal(f.length, 1, f.join('\n'))
  assert.match(itemAt(f, 0), /^[A-Z]{6}\+NotoSansCJKjp-Regular\s+CID Type 0C\s+Identity-H\s+yes yes yes/)
  assertLooksLike(jp.bytes, 'japanese-jp')
  // The same characters in the SC face are other glyphs (直, 骨 have regional forms).
  const sc = render(doc('Noto Sans CJK SC'))
  assert.ok(diffShare(decodeGrayPng(pagePng(jp.bytes, 100)), decodeGrayPng(pagePng(sc.bytes, 100))) > 0.002)
})

test('a name-keyed OpenType CFF font asset is subset too (CID-keyed, with its glyphs only)', () => {
  const asset = { data: readFileSync(INCONSOLATA).toString('base64') }
  const text = 'Invoice 2026-0042: 1,234.50'
  const r = render({ page, styles: { m: { font: 'Mono' } }, body: [{ text, size: 12, style: 'm' }] },
    { fonts: { Mono: asset } })
  assert.deepEqual(lines(r.bytes), [text])
  assert.match(fontsOf(r.bytes).join('\n'), /\+Inconsolata\s+CID Type 0C\s+Identity-H\s+yes yes yes/)
  const cff = itemAt([...cffPrograms(r.bytes).values()], 0)
  assert.ok(cff.cid)
  assert.equal(cff.charStrings.count, new Set(text).size + 1)
  assertLooksLike(r.bytes, 'inconsolata')
})

/**
 * Inconsolata with glyph `x` drawn as glyph `y`: its charstring becomes `1 1 and drop` and then
 * y's charstring (which calls local subroutines), in place, padded with endchar to its length.
 * Charstring arithmetic is what cff-charstrings.ts does not follow (a subroutine number could
 * come out of it): the glyph sends the subset to fontkit's subsetter. The font stays valid
 * (and + drop leave the stack as it was; nothing reads past endchar but more endchars).
 * `and`, as fontkit 2's charstring reader fails on the other arithmetic operators
 * (ReferenceError: its `a` is declared in the `and` case only), already when it measures the glyph.
 */
function withComputedGlyph (x: string, y: string): Buffer {
  const font = Buffer.from(readFileSync(INCONSOLATA))
  const cff = fontTable(font, 'CFF ')
  const src = new CffSource(cff)
  const at = (c: string): [number, number] => { // Inconsolata's glyph ids are its ASCII codes
    const gid = c.charCodeAt(0)
    return [itemStart(cff, src.charStrings, gid), itemStart(cff, src.charStrings, gid + 1)]
  }
  const [xs, xe] = at(x)
  const [ys, ye] = at(y)
  const code = Buffer.concat([Buffer.from([140, 140, 12, 3, 12, 18]), cff.subarray(ys, ye)])
  assert.ok(code.length <= xe - xs, `${y}'s charstring fits in ${x}'s`)
  cff.fill(14, xs, xe)
  code.copy(cff, xs)
  return font
}

test('a glyph with charstring arithmetic: the whole subset goes to fontkit\'s subsetter, and the PDF holds', () => {
  const doc = { page, styles: { m: { font: 'Mono', size: 24 } }, body: [{ text: 'lxl', style: 'm' }] }
  const asset = (data: Buffer): Record<string, unknown> => ({ fonts: { Mono: { data: data.toString('base64') } } })
  const r = render(doc, asset(withComputedGlyph('x', 'l')))
  assert.deepEqual(lines(r.bytes), ['lxl'], 'the text comes back (ToUnicode)')
  assert.match(fontsOf(r.bytes).join('\n'), /\+Inconsolata\s+CID Type 0C\s+Identity-H\s+yes yes yes/)
  const cff = itemAt([...cffPrograms(r.bytes).values()], 0)
  assert.equal(cff.charStrings.count, 3, '.notdef, l and x')
  // fontkit's subset: every local subroutine slot of the font (unused ones emptied), where
  // cff-subset.ts keeps only those the glyphs call.
  const full = new CffSource(fontTable(readFileSync(INCONSOLATA), 'CFF '))
  const fullSubrs = itemAt(full.fds, 0).subrs?.count
  assert.equal(itemAt(cff.fds, 0).subrs?.count, fullSubrs)
  const own = itemAt([...cffPrograms(render(doc, asset(readFileSync(INCONSOLATA))).bytes).values()], 0)
  assert.ok((itemAt(own.fds, 0).subrs?.count ?? 0) < (fullSubrs ?? 0), 'the unmodified font: cff-subset.ts')
  // Poppler draws the x as an l: the page is the one of `lll` in the unmodified font.
  const gray = (bytes: Uint8Array): ReturnType<typeof decodeGrayPng> => decodeGrayPng(pagePng(bytes, 100))
  const lll = gray(render({ ...doc, body: [{ text: 'lll', style: 'm' }] }, asset(readFileSync(INCONSOLATA))).bytes)
  const page1 = gray(r.bytes)
  assert.ok(inkShare(page1, 0, 0, page1.width, page1.height) > 0.005, 'the glyphs are drawn')
  assert.ok(diffShare(page1, lll) < 0.001, `${(diffShare(page1, lll) * 100).toFixed(2)}% of the pixels differ from lll`)
  const lxl = gray(render(doc, asset(readFileSync(INCONSOLATA))).bytes)
  assert.ok(diffShare(lxl, lll) > 0.002, 'an x is not an l')
})

/** A table of the first face of an OpenType collection (or of a single font), in place. */
function fontTable (file: string | Buffer, tag: string): Buffer {
  const b = typeof file === 'string' ? readFileSync(file) : file
  const dir = b.toString('latin1', 0, 4) === 'ttcf' ? b.readUInt32BE(12) : 0
  const n = b.readUInt16BE(dir + 4)
  for (let i = 0; i < n; i++) {
    const r = dir + 12 + i * 16
    if (b.toString('latin1', r, r + 4) === tag) {
      return b.subarray(b.readUInt32BE(r + 8), b.readUInt32BE(r + 8) + b.readUInt32BE(r + 12))
    }
  }
  throw new Error(`no ${tag} table`)
}
