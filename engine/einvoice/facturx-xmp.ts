// The Factur-X / ZUGFeRD XMP properties (Factur-X 1.09, section 6.2.2) and the PDF/A extension
// schema that declares them (ISO 19005 requires every non-predefined XMP schema be described
// in a pdfaExtension:schemas entry). Rendered into the document's XMP packet by pdfa-metadata.ts.
import type { Profile } from './compile.js'

const NS = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#'

export const FILE_NAME: Readonly<Record<Profile, string>> = { EN16931: 'factur-x.xml', XRECHNUNG: 'xrechnung.xml' }
export const CONFORMANCE: Readonly<Record<Profile, string>> = { EN16931: 'EN 16931', XRECHNUNG: 'XRECHNUNG' }

const property = (name: string, description: string): string =>
  `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name>` +
  '<pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category>' +
  `<pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`

const EXTENSION = [
  '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"',
  ' xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">',
  '<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">',
  '<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>',
  `<pdfaSchema:namespaceURI>${NS}</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>`,
  '<pdfaSchema:property><rdf:Seq>',
  property('DocumentFileName', 'The name of the embedded XML document'),
  property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER'),
  property('Version', 'The actual version of the standard applying to the embedded XML document'),
  property('ConformanceLevel', 'The conformance level of the embedded XML document'),
  '</rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>'
].join('')

/** Two rdf:Description elements: the extension schema's declaration, then the fx: properties. */
export function facturxXmp (profile: Profile): string {
  return EXTENSION + '\n' +
    `<rdf:Description rdf:about="" xmlns:fx="${NS}"><fx:DocumentType>INVOICE</fx:DocumentType>` +
    `<fx:DocumentFileName>${FILE_NAME[profile]}</fx:DocumentFileName><fx:Version>1.0</fx:Version>` +
    `<fx:ConformanceLevel>${CONFORMANCE[profile]}</fx:ConformanceLevel></rdf:Description>`
}
