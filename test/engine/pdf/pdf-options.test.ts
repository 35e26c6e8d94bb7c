// `document.pdf`'s parse rules for the accessible levels (issue 34): PDF/A-2a and 3a (conformance
// A), `ua: PDF/UA-1`, what each implies (tagged, every font embedded, PDF 1.7) and what is refused.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TemplateError } from '../../../engine/errors.js'
import { pdfOptions } from '../../../engine/pdf/pdf-options.js'

/** The path and message of the TemplateError `f` throws. */
function refusal (f: () => unknown): { path: string, message: string } {
  try { f() } catch (err) {
    assert.ok(err instanceof TemplateError, String(err))
    assert.equal(err.errors.length, 1)
    return err.errors[0]!
  }
  assert.fail('not refused')
}

test('PDF/A-2a and 3a are conformance A, tagged, fonts embedded, PDF 1.7; 2b is tagged by default, may be untagged', () => {
  for (const part of [2, 3] as const) {
    assert.deepEqual(pdfOptions({ standard: `PDF/A-${part}a` }),
      { pdfa: { part, conformance: 'A' }, ua: false, tagged: true, embedFonts: true, version: '1.7' })
  }
  assert.deepEqual(pdfOptions({ standard: 'PDF/A-2b' }),
    { pdfa: { part: 2, conformance: 'B' }, ua: false, tagged: true, embedFonts: true, version: '1.7' })
  assert.deepEqual(pdfOptions({ standard: 'PDF/A-2b', tagged: false }),
    { pdfa: { part: 2, conformance: 'B' }, ua: false, tagged: false, embedFonts: true, version: '1.7' })
  assert.throws(() => pdfOptions({ standard: 'PDF/A-2a', tagged: false }), /document\.pdf\.tagged: a PDF\/A-2a document is tagged/)
})

test('PDF/UA-1 alone is tagged, embeds every font and is PDF 1.7 (pages\' /Tabs); it combines with 2a and 3a', () => {
  assert.deepEqual(pdfOptions({ ua: 'PDF/UA-1' }),
    { pdfa: null, ua: true, tagged: true, embedFonts: true, version: '1.7' })
  assert.deepEqual(pdfOptions({ standard: 'PDF/A-3a', ua: 'PDF/UA-1' }),
    { pdfa: { part: 3, conformance: 'A' }, ua: true, tagged: true, embedFonts: true, version: '1.7' })
  assert.deepEqual(pdfOptions({ standard: 'PDF/A-2b', ua: 'PDF/UA-1' }),
    { pdfa: { part: 2, conformance: 'B' }, ua: true, tagged: true, embedFonts: true, version: '1.7' })
})

test('refused, naming the path: PDF/A-1 with UA, UA or an a level untagged or without embedded fonts, unknown values', () => {
  assert.equal(refusal(() => pdfOptions({ standard: 'PDF/A-1b', ua: 'PDF/UA-1' })).path, 'document.pdf.ua')
  assert.match(refusal(() => pdfOptions({ standard: 'PDF/A-1b', ua: 'PDF/UA-1' })).message, /PDF 1\.5/)
  assert.equal(refusal(() => pdfOptions({ ua: 'PDF/UA-1', tagged: false })).path, 'document.pdf.tagged')
  assert.equal(refusal(() => pdfOptions({ standard: 'PDF/A-2a', tagged: false })).path, 'document.pdf.tagged')
  assert.equal(refusal(() => pdfOptions({ ua: 'PDF/UA-1', embedFonts: false })).path, 'document.pdf.embedFonts')
  assert.equal(refusal(() => pdfOptions({ standard: 'PDF/A-3a', embedFonts: false })).path, 'document.pdf.embedFonts')
  assert.equal(refusal(() => pdfOptions({ ua: 'PDF/UA-2' })).path, 'document.pdf.ua')
  assert.equal(refusal(() => pdfOptions({ standard: 'PDF/A-1a' })).path, 'document.pdf.standard')
  assert.equal(refusal(() => pdfOptions({ ua: true })).path, 'document.pdf.ua')
})
