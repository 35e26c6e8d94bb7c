// The service's QR encoder (engine/zpl/qr-matrix.ts) against two others and a reader: module for
// module equal to ZXing's encoder (Debian's ZXingWriter: one segment, the mask by the same penalty
// rules) and to bwip-js's at bwip-js's level and mask (bwip-js mixes segments as ours does with
// 'mixed'), and every symbol read back by ZXing with its payload.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import bwipjs from 'bwip-js'
import { qrMatrix, type QrLevel, type QrMatrix } from '../../../engine/zpl/qr-matrix.js'
import { decodeGrayPng, type Gray } from '../pdf/gray-png.js'
import { readRegion } from './zxing.js'

const LEVELS: QrLevel[] = ['L', 'M', 'Q', 'H']

/** Inputs of one mode each (ZXing encodes one segment), of lengths up to version 40. */
function singleMode (): string[] {
  const digits = (n: number): string => Array.from({ length: n }, (_, i) => String((i * 7 + n) % 10)).join('')
  const alnum = (n: number): string => Array.from({ length: n }, (_, i) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:'.charAt((i * 11 + n) % 45)).join('')
  const bytes = (n: number): string => Array.from({ length: n }, (_, i) => 'abcdefghijklmnopqrstuvwxyz!?#&=_'.charAt((i * 5 + n) % 32)).join('')
  return [digits(1), digits(17), digits(41), digits(300), digits(1500), alnum(5), alnum(25), alnum(120), alnum(1000),
    bytes(3), bytes(14), bytes(90), bytes(400), bytes(1200), digits(3057), 'https://example.com/track?id=abc&x=1']
}

function zxingMatrix (text: string, level: QrLevel, size: number, dir: string): number[] {
  const file = join(dir, 'zx.png')
  const ecc = { L: '1', M: '4', Q: '6', H: '8' }[level]
  execFileSync('ZXingWriter', ['-size', `${size}x${size}`, '-margin', '0', '-ecc', ecc, 'QRCode', text, file])
  const g = decodeGrayPng(readFileSync(file))
  assert.equal(g.width, size, `${level} ${text.slice(0, 20)}: ZXing's symbol is ${g.width} modules, ours ${size}`)
  return Array.from(g.pixels, (p) => (p < 128 ? 1 : 0))
}

test('matrices equal ZXing\'s encoder (versions 1–40, levels L/M/Q/H, numeric/alphanumeric/byte, mask by penalty)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qr-'))
  try {
    const versions = new Set<number>()
    let masks = 0
    for (const level of LEVELS) {
      for (const text of singleMode()) {
        const ours = qrMatrix(text, level)
        versions.add(ours.version)
        masks |= 1 << ours.mask
        const theirs = zxingMatrix(text, level, ours.size, dir)
        const diff = theirs.reduce((n, v, i) => n + (v === ours.modules[i] ? 0 : 1), 0)
        assert.equal(diff, 0, `${level} "${text.slice(0, 20)}" (version ${ours.version}, mask ${ours.mask}): ${diff} modules differ`)
      }
    }
    // The inputs reach small and large versions (alignment patterns, version information) and many masks.
    assert.ok(versions.has(1) && versions.has(40) && [...versions].some((v) => v >= 7 && v < 40), [...versions].join(','))
    assert.ok(masks.toString(2).replace(/0/g, '').length >= 5, `masks used: ${masks.toString(2)}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

/** Level and mask of a matrix, from its format information (the copy around the top-left finder). */
function formatOf (dark: (x: number, y: number) => boolean): { level: QrLevel, mask: number } {
  const at = [[8, 0], [8, 1], [8, 2], [8, 3], [8, 4], [8, 5], [8, 7], [8, 8], [7, 8],
    [5, 8], [4, 8], [3, 8], [2, 8], [1, 8], [0, 8]]
  const bits = at.reduce((v, [x, y], i) => v | ((dark(x ?? 0, y ?? 0) ? 1 : 0) << i), 0) ^ 0x5412
  return { level: (['M', 'L', 'H', 'Q'] as const)[bits >> 13] ?? 'L', mask: (bits >> 10) & 7 }
}

test('matrices equal bwip-js\'s at its level and mask, segments of mixed modes included', () => {
  // Only inputs where bwip-js also takes the fewest bits: for some (a URL ending in a tracking
  // number) it splits segments otherwise, in the same version, and both symbols read the same.
  const inputs = ['1Z999AA10123456784', 'abc123456789012def', 'HELLO WORLD',
    'x'.repeat(300), 'A1'.repeat(80) + '12345678901234567890']
  for (const level of LEVELS) {
    for (const text of inputs) {
      const raw = (bwipjs.raw('qrcode', text, `eclevel=${level}`) as unknown as Array<{ pixs: number[], pixx: number }>)[0]
      assert.ok(raw !== undefined)
      const { level: used, mask } = formatOf((x, y) => raw.pixs[y * raw.pixx + x] !== 0)
      const ours = qrMatrix(text, used, mask, 'mixed')
      assert.equal(ours.size, raw.pixx, `${level} "${text}": size`)
      const diff = raw.pixs.reduce((n, v, i) => n + ((v !== 0 ? 1 : 0) === ours.modules[i] ? 0 : 1), 0)
      assert.equal(diff, 0, `${used} mask ${mask} "${text.slice(0, 24)}": ${diff} modules differ`)
    }
  }
})

/** The matrix as a picture: 4 pixels a module, a quiet zone of 4 modules. */
function pictureOf (m: QrMatrix): Gray {
  const scale = 4
  const side = (m.size + 8) * scale
  const pixels = new Uint8Array(side * side).fill(255)
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const mx = Math.floor(x / scale) - 4
      const my = Math.floor(y / scale) - 4
      const inside = mx >= 0 && my >= 0 && mx < m.size && my < m.size
      if (inside && m.modules[my * m.size + mx] === 1) pixels[y * side + x] = 0
    }
  }
  return { width: side, height: side, pixels }
}

test('every symbol reads back in ZXing with its payload (UTF-8 bytes, one or mixed segments, version 40)', () => {
  const inputs = ['1Z999AA10123456784', 'Straße 12, Kraków ✓', 'abc123456789012def', 'ABC-123 xyz', '9'.repeat(3057)]
  for (const level of LEVELS) {
    for (const [k, text] of inputs.entries()) {
      const m = qrMatrix(text, level, undefined, k % 2 === 0 ? 'single' : 'mixed')
      const read = readRegion(pictureOf(m), 'QRCode', 0, 0, (m.size + 8) * 4, (m.size + 8) * 4)
      // The reader prints characters beyond ASCII as <U+…>.
      const payload = read.text.replace(/<U\+([0-9A-F]+)>/g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
      assert.equal(payload, text, `${level} version ${m.version}`)
    }
  }
  // 3,057 digits fill version 40 at level H exactly.
  assert.equal(qrMatrix('9'.repeat(3057), 'H').version, 40)
  assert.throws(() => qrMatrix('9'.repeat(3058), 'H'), /does not fit in a QR code at level H/)
})
