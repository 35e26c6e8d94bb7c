// What a PDF/A template needs beyond a plain one, checked when it compiles (at publish), each
// failure naming the JSON path: the sRGB profile of the output intent is installed, and every
// font asset may be embedded (PDF/A embeds every font; a font whose OS/2 fsType says
// "restricted licence" may not be). Standard fonts are checked where a style names them
// (fonts.ts: their URW faces must be installed); CMYK images where an image is used (compile.ts).
import { fail } from './styles.js'
import type { FontSet } from './fonts.js'
import { SRGB_PROFILE, srgbProfile } from './output-intent.js'

interface Os2 { 'OS/2'?: { fsType?: { noEmbedding?: boolean } } }

export function checkPdfA (fonts: FontSet): void {
  if (srgbProfile() === null) {
    throw fail('document.pdf.standard', `PDF/A needs the sRGB ICC profile ${SRGB_PROFILE} (Debian ` +
      'icc-profiles-free): run scripts/install-debian-deps.sh')
  }
  for (const name of fonts.assetNames()) {
    const fk = fonts.get(name, `assets.fonts.${name}`).fk as Os2 | null
    if (fk?.['OS/2']?.fsType?.noEmbedding === true) {
      throw fail(`assets.fonts.${name}`, 'the font\'s licence forbids embedding (OS/2 fsType: restricted), and a ' +
        'PDF/A document (document.pdf.standard) embeds every font')
    }
  }
}
