// Transparency flattened onto white, for PDF/A documents: PDF/A-1 forbids soft masks, and a
// flattened image is valid in every part (the validator here applies PDF/A-1's rules). White is
// the page colour: the engine draws no page background, and an image over a filled rect is
// rare enough that flattening onto white is what the document shows in practice. Done once
// per compiled template, like the rest of images.ts.

/** `color` (n channels per pixel) composited over white with `alpha`, in place. */
export function flattenOnWhite (color: Uint8Array, alpha: Uint8Array, channels: number): Uint8Array {
  if (color.length !== alpha.length * channels) throw new Error('flattenOnWhite: colour and alpha sizes differ')
  for (let i = 0, c = 0; i < alpha.length; i++) {
    const a = alpha[i]!
    for (let k = 0; k < channels; k++, c++) color[c] = Math.round((color[c]! * a + 255 * (255 - a)) / 255)
  }
  return color
}
