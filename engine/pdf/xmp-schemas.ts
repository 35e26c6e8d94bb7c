// XMP properties outside the schemas PDF/A predefines (pdfaid, dc, xmp, pdf …) must be described
// in the packet's pdfaExtension:schemas (ISO 19005-1 6.7.8, kept by parts 2 and 3). A document
// may carry several such schemas (Factur-X's fx:, PDF/UA's pdfuaid:), and the Bag of
// descriptions must be one: veraPDF and the preflight read the first pdfaExtension:schemas only.
// So every part that brings a schema hands its description here and pdfa-metadata.ts writes
// them together, once.
import { joined } from '../lists.js'

export interface XmpProperty {
  name: string
  valueType: 'Text' | 'Integer'
  /** `internal`: written by the producer; `external`: a statement about the content. */
  category: 'internal' | 'external'
  description: string
}

export interface XmpExtensionSchema {
  schema: string
  namespaceURI: string
  prefix: string
  properties: XmpProperty[]
}

/** XMP metadata in a non-predefined schema: its rdf:Description and the schema describing it. */
export interface XmpPart {
  schema: XmpExtensionSchema
  /** One rdf:Description element with the properties. */
  description: string
}

const property = (p: XmpProperty): string =>
  `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${p.name}</pdfaProperty:name>` +
  `<pdfaProperty:valueType>${p.valueType}</pdfaProperty:valueType>` +
  `<pdfaProperty:category>${p.category}</pdfaProperty:category>` +
  `<pdfaProperty:description>${p.description}</pdfaProperty:description></rdf:li>`

const schema = (s: XmpExtensionSchema): string =>
  '<rdf:li rdf:parseType="Resource">' +
  `<pdfaSchema:schema>${s.schema}</pdfaSchema:schema>` +
  `<pdfaSchema:namespaceURI>${s.namespaceURI}</pdfaSchema:namespaceURI>` +
  `<pdfaSchema:prefix>${s.prefix}</pdfaSchema:prefix>` +
  `<pdfaSchema:property><rdf:Seq>${joined(s.properties, property)}</rdf:Seq></pdfaSchema:property></rdf:li>`

/** One rdf:Description holding one pdfaExtension:schemas Bag that describes all `schemas`. */
export function extensionSchemas (schemas: readonly XmpExtensionSchema[]): string {
  return '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"' +
    ' xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">' +
    `<pdfaExtension:schemas><rdf:Bag>${joined(schemas, schema)}</rdf:Bag></pdfaExtension:schemas>` +
    '</rdf:Description>'
}

const PDFUA_NS = 'http://www.aiim.org/pdfua/ns/id/'

/** PDF/UA identification (ISO 14289-1 5): `pdfuaid:part` 1. */
export const PDFUA_PART: XmpPart = {
  schema: {
    schema: 'PDF/UA Universal Accessibility Schema',
    namespaceURI: PDFUA_NS,
    prefix: 'pdfuaid',
    properties: [{
      name: 'part', valueType: 'Integer', category: 'internal', description: 'Indicates, which part of ISO 14289 standard is followed'
    }]
  },
  description: `<rdf:Description rdf:about="" xmlns:pdfuaid="${PDFUA_NS}"><pdfuaid:part>1</pdfuaid:part></rdf:Description>`
}
