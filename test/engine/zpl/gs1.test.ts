// GS1 element strings: every fault fails the render with RENDER_FAILED naming the AI.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { RenderError } from '../../../engine/errors.js'
import { checkElementString } from '../../../engine/gs1/element-string.js'
import { gs1128Zpl, gs1DataMatrixZpl } from '../../../engine/zpl/gs1-zpl.js'

const fails = (text: string, symbology: 'gs1-128' | 'gs1-datamatrix', pattern: RegExp): void => {
  assert.throws(() => checkElementString(text, symbology, 'label.elements[1]'),
    (e: unknown) => e instanceof RenderError && e.code === 'RENDER_FAILED' && pattern.test(e.message), text)
}

test('valid element strings pass; check digits are verified for SSCC, GTIN and GLN', () => {
  assert.deepEqual(checkElementString('(00)106141411234567897(02)10614141000019(37)12', 'gs1-128', 'x').map((e) => e.ai), ['00', '02', '37'])
  assert.equal(checkElementString('(01)10614141000019(410)0614141000012', 'gs1-datamatrix', 'x').length, 2)
})

test('wrong check digits, unknown AIs, bad lengths, dates and pairings each name the AI', () => {
  fails('(00)106141411234567898', 'gs1-128', /AI \(00\): check digit is 8, should be 7/)
  fails('(01)10614141000018', 'gs1-128', /AI \(01\): check digit is 8, should be 9/)
  fails('(01)10614141000019(410)0614141000013', 'gs1-128', /AI \(410\): check digit/)
  fails('(01)10614141000019(23)12', 'gs1-128', /AI \(23\) is unknown/)
  fails('(01)10614141000019(10)ABCDEFGHIJKLMNOPQRSTU', 'gs1-datamatrix', /AI \(10\): .* has 21 characters, BATCH\/LOT takes 1 to 20/)
  fails('(00)10614141123456789', 'gs1-128', /AI \(00\): .* has 17 characters, SSCC takes 18/)
  fails('(01)10614141000019(17)261332', 'gs1-128', /AI \(17\): "261332" is not a date/)
  fails('(01)1061414100001A', 'gs1-128', /AI \(01\): .* must be digits only/)
  fails('(01)10614141000019(10)A#B', 'gs1-128', /AI \(10\): .*character set 82/)
  fails('(02)10614141000019', 'gs1-128', /AI \(02\) requires AI \(37\)/)
  fails('(00)106141411234567897(37)5', 'gs1-128', /AI \(37\) requires AI \(02\)/)
  fails('(01)10614141000019(02)10614141000019(37)1', 'gs1-128', /AI \(01\) and AI \(02\)/)
  fails('(01)10614141000019(10)ABC(10)DEF', 'gs1-128', /AI \(10\) appears twice/)
  fails('01106141410000191', 'gs1-128', /must start with an AI/)
  // 48 characters in GS1-128: the AI that crosses it is named; DataMatrix takes more.
  const long = '(01)10614141000019(10)ABCDEFGHIJ(21)ABCDEFGHIJKLMNOPQRST'
  fails(long, 'gs1-128', /AI \(21\): GS1-128 carries at most 48 characters, this element ends at 51/)
  assert.equal(checkElementString(long, 'gs1-datamatrix', 'x').length, 3)
})

test('FNC1 is explicit: >8 first and after variable-length fields in ^BC, #1 in ^BX (the escape set in ^BX)', () => {
  assert.equal(gs1128Zpl('(00)106141411234567897(37)12(02)10614141000019', 'x'), '>;>8001061414112345678973712>80210614141000019')
  assert.equal(gs1128Zpl('(01)10614141000019(10)A>B', 'x'), '>;>8011061414100001910>6A><B')
  assert.equal(gs1DataMatrixZpl('(01)10614141000019(10)L_1(17)261231', 'x'), '#1011061414100001910L_1#117261231')
})
