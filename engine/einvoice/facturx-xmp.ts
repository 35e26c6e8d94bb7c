// The Factur-X / ZUGFeRD XMP properties (Factur-X 1.09, section 6.2.2) and the PDF/A extension
// schema that declares them (ISO 19005 requires every non-predefined XMP schema be described
// in a pdfaExtension:schemas entry). pdfa-metadata.ts writes the declaration into the packet's
// one extension-schemas Bag (beside PDF/UA's, when both) and the properties after it.
import type { XmpPart, XmpProperty } from '../pdf/xmp-schemas.js'
import type { Profile } from './compile.js'

const NS = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#'

export const FILE_NAME: Readonly<Record<Profile, string>> = { EN16931: 'factur-x.xml', XRECHNUNG: 'xrechnung.xml' }
export const CONFORMANCE: Readonly<Record<Profile, string>> = { EN16931: 'EN 16931', XRECHNUNG: 'XRECHNUNG' }

const property = (name: string, description: string): XmpProperty =>
  ({ name, valueType: 'Text', category: 'external', description })

const SCHEMA = {
  schema: 'Factur-X PDFA Extension Schema',
  namespaceURI: NS,
  prefix: 'fx',
  properties: [
    property('DocumentFileName', 'The name of the embedded XML document'),
    property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER'),
    property('Version', 'The actual version of the standard applying to the embedded XML document'),
    property('ConformanceLevel', 'The conformance level of the embedded XML document')
  ]
}

/** The fx: properties of the invoice and the extension schema that declares them. */
export function facturxXmp (profile: Profile): XmpPart {
  return {
    schema: SCHEMA,
    description: `<rdf:Description rdf:about="" xmlns:fx="${NS}"><fx:DocumentType>INVOICE</fx:DocumentType>` +
      `<fx:DocumentFileName>${FILE_NAME[profile]}</fx:DocumentFileName><fx:Version>1.0</fx:Version>` +
      `<fx:ConformanceLevel>${CONFORMANCE[profile]}</fx:ConformanceLevel></rdf:Description>`
  }
}
