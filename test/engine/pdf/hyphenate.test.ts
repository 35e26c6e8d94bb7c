// Optional hyphenation (`"hyphenate": true` in a style) by `context.language`, read back with
// pdftotext: the word comes back whole (hyphen at the line end), nothing leaves its column.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { test } from 'node:test'
import { compileDocument } from '../../../engine/pdf/compile.js'
import { hyphenationStats, hyphenatorFor, patternFileFor } from '../../../engine/pdf/hyphenate.js'
import { renderPdf } from '../../../engine/pdf/render-pdf.js'
import { validateTemplate } from '../../../engine/template/validate.js'
import { input, invoiceDefinition, pdfText, withPdf } from './fixtures.js'
import { itemAt } from '../../helpers/item-at.js'

const LEFT = 20
const WORD = 'Donaudampfschifffahrtsgesellschaftskapitän'
const SENTENCE = `Der ${WORD} grüßt die Rechtsschutzversicherungsgesellschaften`

function render (document: unknown, language?: string): Uint8Array {
  const def = invoiceDefinition(document)
  const context = language === undefined ? {} : { language }
  return renderPdf(compileDocument(def.document, def), { ...input(def, {}), context }).bytes
}

/** A one-column page `width` points wide with `body`. */
const page = (width: number, body: unknown[], extra: Record<string, unknown> = {}): unknown =>
  ({ page: { size: [width + 2 * LEFT, 400], margins: LEFT }, body, ...extra })

const lines = (bytes: Uint8Array): string[] => pdfText(bytes).split('\n').map((l) => l.trim()).filter((l) => l !== '')

/** Every word box of pdftotext -bbox stays inside [LEFT, LEFT + width]. */
function assertInside (bytes: Uint8Array, width: number): void {
  const bbox = withPdf(bytes, (file) => execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' }))
  const words = [...bbox.matchAll(/xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</g)]
  assert.ok(words.length > 0)
  for (const w of words) {
    assert.ok(Number(w[1]) >= LEFT - 0.5, `starts inside: ${w[3]}`)
    assert.ok(Number(w[2]) <= LEFT + width + 0.5, `ends inside the column: ${w[3]} at ${w[2]}`)
  }
}

test('German: a long word in a narrow column breaks at a syllable with a hyphen; the text reads back whole', () => {
  const width = 130
  const bytes = render(page(width, [{ text: SENTENCE, size: 12, hyphenate: true }]), 'de')
  const got = lines(bytes)
  assert.ok(got.length >= 3, got.join(' | '))
  assert.ok(got.slice(0, -1).some((l) => l.endsWith('-')), got.join(' | '))
  // Every hyphen at a line end is inside a word (between letters), at a German syllable break.
  assert.equal(got.map((l) => l.endsWith('-') ? l.slice(0, -1) : l + ' ').join('').trim(), SENTENCE)
  const heads = got.filter((l) => l.endsWith('-')).map((l) => l.split(' ').pop())
  const syllables = hyphenatorFor('de')?.points(WORD).map((k) => WORD.slice(0, k) + '-') ?? []
  assert.ok(syllables.includes('Donau-'))
  assert.ok(heads.some((h) => h !== undefined && syllables.includes(h)), heads.join(' '))
  assertInside(bytes, width)
})

test('hyphenation is off by default, and off for a language without patterns or no language', () => {
  const width = 130
  const off = lines(render(page(width, [{ text: SENTENCE, size: 12 }]), 'de'))
  const unknown = lines(render(page(width, [{ text: SENTENCE, size: 12, hyphenate: true }]), 'xx'))
  const none = lines(render(page(width, [{ text: SENTENCE, size: 12, hyphenate: true }])))
  for (const got of [off, unknown, none]) {
    assert.ok(got.every((l) => !l.endsWith('-')), got.join(' | '))
    // Without hyphenation the long word is cut by characters where the column ends.
    assert.equal(got.join('').replaceAll(' ', ''), SENTENCE.replaceAll(' ', ''))
  }
  assert.deepEqual(unknown, off)
  assert.deepEqual(none, off)
})

test('words that fit are never hyphenated; a named style, a table and its header opt in too', () => {
  const width = 170
  const text = `Ein kurzer Satz mit ${WORD}`
  const doc = page(width, [
    { text: 'Kurze Wörter passen', hyphenate: true },
    { text, style: 'h' },
    { table: { rows: 'rows', hyphenate: true, columns: [{ header: WORD, value: '{{ row.v }}' }] } }
  ], { styles: { h: { size: 12, hyphenate: true } } })
  const def = invoiceDefinition(doc)
  const bytes = renderPdf(compileDocument(def.document, def), {
    ...input(def, { rows: [{ v: `Rechtsschutzversicherungsgesellschaften ${WORD}` }] }),
    context: { language: 'de-AT' }
  }).bytes
  const got = lines(bytes)
  assert.equal(got[0], 'Kurze Wörter passen')
  const second = itemAt(got, 1)
  assert.ok(second.startsWith('Ein kurzer Satz mit ') && second.endsWith('-'), second)
  assert.ok(got.filter((l) => l.endsWith('-')).length >= 3, got.join(' | '))
  assertInside(bytes, width)
})

test('narrow columns never overflow: every width from 20 to 200 points, English and German', () => {
  const en = 'Internationalization of characteristically incomprehensible responsibilities, notwithstanding'
  for (const [language, text] of [['en', en], ['de', SENTENCE]] as const) {
    for (let width = 20; width <= 200; width += 15) {
      const bytes = render(page(width, [{ text, size: 11, hyphenate: true }]), language)
      assertInside(bytes, width)
      const back = lines(bytes).map((l) => l.endsWith('-') ? l.slice(0, -1) : l).join('')
      const bare = (t: string): string => t.replace(/[ -]/g, '')
      assert.equal(bare(back), bare(text), `${language} at ${width}pt`)
    }
  }
})

test('patterns are loaded once per worker and language; tags map to their pattern files', () => {
  assert.equal(patternFileFor('de-DE'), 'de-1996')
  assert.equal(patternFileFor('en_GB'), 'en-gb')
  assert.equal(patternFileFor('EN'), 'en-us')
  assert.equal(patternFileFor('pt-BR'), 'pt')
  assert.equal(patternFileFor('ru'), undefined, 'Latin-script languages only')
  assert.equal(patternFileFor('../../package'), undefined)
  assert.equal(patternFileFor(42), undefined)
  hyphenatorFor('nl')
  const loads = hyphenationStats.loads
  const long = (): unknown => page(60, [{ text: 'Arbeidsongeschiktheidsverzekering', hyphenate: true }])
  for (let i = 0; i < 3; i++) render(long(), 'nl-BE')
  assert.equal(hyphenationStats.loads, loads)
  assert.ok(hyphenationStats.hits >= 3)
  assert.deepEqual(hyphenatorFor('en')?.points('hyphenation'), [2, 6])
})

test('the published template schema takes "hyphenate" as a boolean only', () => {
  const template = (hyphenate: unknown): unknown => ({
    code: 'h', format: 'document', document: { styles: { s: { hyphenate } }, body: [{ text: 'x', hyphenate }] }
  })
  assert.equal(validateTemplate(template(true)).ok, true)
  const bad = validateTemplate(template('yes'))
  assert.ok(!bad.ok)
  assert.deepEqual(bad.errors.map((e) => e.path).sort(), ['/document/body/0/hyphenate', '/document/styles/s/hyphenate'])
})
