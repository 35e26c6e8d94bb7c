import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_ESCAPED_PER_UNIT, escapeFieldData, isSafeParameter, writeFieldData } from '../../../engine/zpl/escape.js'

test('plain printable ASCII passes through unchanged', () => {
  assert.equal(escapeFieldData('Hello, World 123 !#$%&()*+-./:;<=>?@[]{}|'), 'Hello, World 123 !#$%&()*+-./:;<=>?@[]{}|')
})

test('command prefixes and the hex indicator are hex-escaped', () => {
  assert.equal(escapeFieldData('^XZ^XA'), '_5EXZ_5EXA')
  assert.equal(escapeFieldData('~JA'), '_7EJA')
  assert.equal(escapeFieldData('a_b'), 'a_5Fb')
  assert.equal(escapeFieldData('^FS^FO0,0^FDpwned'), '_5EFS_5EFO0,0_5EFDpwned')
})

test('non-ASCII is written as UTF-8 bytes, control characters too', () => {
  assert.equal(escapeFieldData('ü'), '_C3_BC')
  assert.equal(escapeFieldData('€'), '_E2_82_AC')
  assert.equal(escapeFieldData('😀'), '_F0_9F_98_80')
  assert.equal(escapeFieldData('a\nb\tc\u007f'), 'a_0Ab_09c_7F')
  assert.equal(escapeFieldData('\ud800x'), '_EF_BF_BDx', 'a lone surrogate becomes U+FFFD')
  assert.equal(escapeFieldData('Grüße €'), 'Gr_C3_BC_C3_9Fe _E2_82_AC')
})

test('a custom indicator escapes itself and leaves `_` alone', () => {
  assert.equal(escapeFieldData('a\\b_c^', '\\'), 'a\\5Cb_c\\5E')
})

test('output is always printable ASCII without ^ or ~', () => {
  let all = ''
  for (let c = 0; c < 0x300; c++) all += String.fromCharCode(c)
  const out = escapeFieldData(all + '😀')
  assert.match(out, /^[ -~]*$/)
  assert.ok(!out.includes('^') && !out.includes('~'))
})

test('parameter positions accept only harmless characters', () => {
  assert.equal(isSafeParameter('50'), true)
  assert.equal(isSafeParameter('1.5,-2 +A'), true)
  for (const bad of ['^XZ', '~JA', '50^FS', 'a_b', 'ü', '1\n2']) assert.equal(isSafeParameter(bad), false, bad)
})

test('writeFieldData never needs more than MAX_ESCAPED_PER_UNIT bytes per UTF-16 unit', () => {
  for (const worst of ['\u0800', '\uffff', '\ud83d\ude00', '\ud800', '\u00ff', '^', '\u0000']) {
    const text = worst.repeat(100)
    const buf = new Uint8Array(MAX_ESCAPED_PER_UNIT * text.length)
    const end = writeFieldData(buf, 0, text, 0x5f)
    assert.ok(end <= buf.length, JSON.stringify(worst))
    assert.equal(Buffer.from(buf.subarray(0, end)).toString('latin1'), escapeFieldData(text))
  }
})

test('writeFieldData writes at the given offset and leaves the bytes before it alone', () => {
  const buf = Buffer.alloc(40, 0x2e)
  const end = writeFieldData(buf, 3, 'aü^', 0x5f)
  assert.equal(buf.toString('latin1', 0, end + 1), '...a_C3_BC_5E.')
})
