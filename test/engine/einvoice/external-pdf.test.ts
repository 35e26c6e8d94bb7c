// The PDF side of the engine's e-invoices, which neither validator checks: PDF/A-3b preflight on
// a fixed sample, the printed totals and VAT amounts (pdftotext) against the embedded XML
// (pdfdetach) for every invoice, and the file specification, embedded file and Factur-X XMP
// read with qpdf --json.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { CASES } from './cases.js'
import { renderAll, type Rendered, type RenderedSet } from './rendered.js'
import { detach, pdftotext, pool, preflight, qpdfJson } from './tools.js'

const FX = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#'
let set: RenderedSet
let files: Rendered[]
let xrFile: string
let preflights: Promise<Array<{ f: Rendered, v: { code: number, out: string } }>>

before(() => {
  set = renderAll()
  files = set.files
  xrFile = set.xrechnung.file
  const corpus = files.slice(CASES.length)
  const long = corpus.find((f) => f.long)
  assert.ok(long !== undefined)
  // Preflight starts a JVM per file: a fixed sample, started now so it overlaps the other tests.
  const sample = [...files.slice(0, 4), corpus[0]!, long, corpus[7]!, set.xrechnung]
  preflights = pool(sample, 2, async (f) => ({ f, v: await preflight(f.file) }))
})
after(() => { set.remove() })

test('a fixed sample (4 cases, 3 corpus invoices, one of them long, the XRechnung variant) passes PDF/A-3b preflight',
  async () => {
    for (const { f, v } of await preflights) assert.equal(v.code, 0, `${f.name}: ${v.out}`)
  })

const xmlAmount = (xml: string, tag: string): string => {
  const m = new RegExp(`<ram:${tag}[^>]*>([^<]*)</ram:${tag}>`).exec(xml)
  assert.ok(m !== null, `no ${tag}`)
  return m[1]!
}

test('the totals and VAT amounts printed on every page equal the embedded XML\'s', async () => {
  await pool(files, 3, async (f) => {
    const xmlFile = f.file.replace(/\.pdf$/, '.xml')
    await detach(f.file, 'factur-x.xml', xmlFile)
    const full = readFileSync(xmlFile, 'utf8')
    // The document totals: the header's monetary summation (lines have a LineTotalAmount too).
    const xml = full.slice(full.indexOf('<ram:SpecifiedTradeSettlementHeaderMonetarySummation>'))
    const text = await pdftotext(f.file)
    const printed = (label: string): string => {
      const m = new RegExp(`${label}=(-?[0-9.]+)`).exec(text)
      assert.ok(m !== null, `${f.name}: no ${label} on the page`)
      return m[1]!
    }
    assert.equal(printed('LineTotal'), xmlAmount(xml, 'LineTotalAmount'), f.name)
    assert.equal(printed('TaxBasis'), xmlAmount(xml, 'TaxBasisTotalAmount'), f.name)
    assert.equal(printed('TaxTotal'), xmlAmount(xml, 'TaxTotalAmount'), f.name)
    assert.equal(printed('GrandTotal'), xmlAmount(xml, 'GrandTotalAmount'), f.name)
    assert.equal(printed('DuePayable'), xmlAmount(xml, 'DuePayableAmount'), f.name)
    const header = full.slice(full.indexOf('<ram:ApplicableHeaderTradeSettlement>'))
    const xmlVat = [...header.matchAll(/<ram:CalculatedAmount>([^<]*)<\/ram:CalculatedAmount>/g)].map((m) => m[1])
    const pageVat = [...text.matchAll(/vat=(-?[0-9.]+)/g)].map((m) => m[1])
    assert.deepEqual(pageVat, xmlVat, f.name)
  })
})

type Objects = Awaited<ReturnType<typeof qpdfJson>>
const deref = (objs: Objects, ref: unknown): Record<string, unknown> => {
  const o = objs.get(`obj:${String(ref)}`)
  assert.ok(o !== undefined, `no object ${String(ref)}`)
  return (o.value ?? o.stream?.dict) as Record<string, unknown>
}

for (const [label, file, name, level] of [
  ['Factur-X', (): string => files[0]!.file, 'factur-x.xml', 'EN 16931'],
  ['XRechnung', (): string => xrFile, 'xrechnung.xml', 'XRECHNUNG']
] as const) {
  test(`${label}: the catalog's /AF file specification, its embedded file and the Factur-X XMP (qpdf --json)`,
    async () => {
      const objs = await qpdfJson(file())
      const catalog = [...objs.values()].map((o) => o.value as Record<string, unknown> | undefined).find((v) =>
        v?.['/Type'] === '/Catalog')
      assert.ok(catalog !== undefined)
      const af = catalog['/AF'] as string[]
      assert.equal(af.length, 1)
      const spec = deref(objs, af[0])
      assert.equal(spec['/Type'], '/Filespec')
      assert.equal(spec['/AFRelationship'], '/Alternative')
      assert.equal(spec['/F'], `u:${name}`)
      assert.equal(spec['/UF'], `u:${name}`)
      const ef = spec['/EF'] as Record<string, string>
      const stream = deref(objs, ef['/F'])
      assert.equal(stream['/Type'], '/EmbeddedFile')
      assert.equal(stream['/Subtype'], '/text/xml') // qpdf shows the name decoded: /text#2Fxml in the file
      assert.equal((stream['/Params'] as Record<string, unknown>)['/ModDate'], 'u:D:20000101000000Z')
      const names = deref(objs, catalog['/Names'])['/EmbeddedFiles'] as { '/Names': string[] }
      assert.deepEqual(names['/Names'], [`u:${name}`, af[0]])
      // The XMP packet: the fx: properties and their pdfaExtension declaration.
      const meta = objs.get(`obj:${String(catalog['/Metadata'])}`)?.stream?.data
      assert.ok(meta !== undefined)
      const xmp = Buffer.from(meta, 'base64').toString('utf8')
      const fx = new RegExp(`<rdf:Description rdf:about="" xmlns:fx="${FX}">(.*?)</rdf:Description>`).exec(xmp)
      assert.ok(fx !== null, xmp)
      assert.match(fx[1]!, /<fx:DocumentType>INVOICE<\/fx:DocumentType>/)
      assert.match(fx[1]!, new RegExp(`<fx:DocumentFileName>${name}</fx:DocumentFileName>`))
      assert.match(fx[1]!, /<fx:Version>1\.0<\/fx:Version>/)
      assert.match(fx[1]!, new RegExp(`<fx:ConformanceLevel>${level}</fx:ConformanceLevel>`))
      assert.match(xmp,
        new RegExp(`<pdfaSchema:namespaceURI>${FX}</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>`))
      for (const p of ['DocumentFileName', 'DocumentType', 'Version', 'ConformanceLevel']) {
        assert.match(xmp,
          new RegExp(`<pdfaProperty:name>${p}</pdfaProperty:name>` +
            '<pdfaProperty:valueType>Text</pdfaProperty:valueType>'))
      }
    })
}
