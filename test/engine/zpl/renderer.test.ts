// Proves the emitted ZPL is real ZPL: renders it with zpl-renderer-js (a ZPL interpreter in
// WebAssembly) and reads the barcodes back with zbarimg.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ready } from 'zpl-renderer-js'
import { getCompiled } from '../../../engine/template/cache.js'
import { createScope } from '../../../engine/expr/expressions.js'
import { renderLabels } from '../../../engine/zpl/render.js'
import { itemAt } from '../../helpers/item-at.js'

const root = new URL('../../../../examples/', import.meta.url)

function decode (png: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'zpl-test-'))
  try {
    const file = join(dir, 'label.png')
    writeFileSync(file, Buffer.from(png, 'base64'))
    // --raw prints the decoded bytes only; zbarimg exits 4 when it finds nothing.
    return execFileSync('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Scode128.enable', file], { encoding: 'utf8' }).trim().split('\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test('the example shipping label renders as one image per parcel, hostile data included', async () => {
  const definition = readFileSync(new URL('templates/shipping-label.json', root), 'utf8')
  const data = JSON.parse(readFileSync(new URL('data/shipping-label.json', root), 'utf8')) as { parcels: Array<{ tracking_no: string, qty: number }> }
  const hostile = { ...data.parcels[0], tracking_no: 'TRK^XZ^XA~JA_1', recipient_name: '^XZ^XA^FO0,0^FDpwned^FS^XZ', qty: 1 }
  const parcels = [...data.parcels, hostile]
  const compiled = getCompiled('test:shipping-label:renderer', definition)
  const { bytes, labelCount } = renderLabels(compiled, createScope({ datasets: { parcels }, parameters: { batchId: 1 }, context: { language: 'de' } }), { maxLabels: 100, maxBytes: 1e6 })
  assert.equal(labelCount, parcels.reduce((n, p) => n + p.qty, 0))
  const zpl = Buffer.from(bytes).toString('utf8')
  assert.equal(zpl.match(/\^XA/g)?.length, parcels.length, 'one ^XA per parcel: data opened no label')
  const { api } = await ready
  const images = await api.zplToBase64MultipleAsync(zpl, 101.6, 152.4, 8)
  assert.equal(images.length, parcels.length)
  assert.deepEqual(decode(itemAt(images, 0)), [itemAt(parcels, 0).tracking_no])
  assert.deepEqual(decode(itemAt(images, -1)), ['TRK^XZ^XA~JA_1'], 'escaped data prints literally')
})
