// Printer resolutions and the one rounding rule of retargeting (docs/templates.md, "Resolutions").
// A length in dots at the authored resolution becomes `round(dots × to ÷ from)` at the target:
// within half a target dot (0.042 mm at 300 dpi) of the authored length, so positions agree
// across resolutions to far better than the ±0.25 mm a label is checked to.

export const DPIS = [152, 203, 300, 600] as const
export type Dpi = typeof DPIS[number]
export const DEFAULT_DPI: Dpi = 203

export function isDpi (v: unknown): v is Dpi {
  return typeof v === 'number' && (DPIS as readonly number[]).includes(v)
}

/**
 * A barcode module (X-dimension) scaled to the target may deviate by at most this share of the
 * authored X after snapping to whole dots; beyond it a symbol's printed size, and the scanners
 * it suits, change too much to call it the same label.
 */
export const X_TOLERANCE = 0.25

export interface Scale { from: Dpi, to: Dpi, factor: number }

export function scaleOf (from: Dpi, to: Dpi): Scale {
  return { from, to, factor: to / from }
}

export function scaleDots (dots: number, s: Scale): number {
  return Math.round(dots * s.factor)
}

/**
 * A module width snapped to whole target dots: the nearest, else the other neighbour if only it
 * is within X_TOLERANCE; undefined when neither is (the caller refuses or draws a graphic).
 */
export function snapModule (dots: number, s: Scale, min = 1, max = Infinity): number | undefined {
  const exact = dots * s.factor
  const near = Math.round(exact)
  const other = near > exact ? Math.floor(exact) : Math.ceil(exact)
  for (const m of [near, other]) {
    if (m >= min && m <= max && Math.abs(m - exact) <= exact * X_TOLERANCE) return m
  }
  return undefined
}

/**
 * Bitmap fonts (A–H and the other ^A fonts but 0) print only whole multiples of their dot matrix.
 * Their sizes scale by the nearest whole factor when it is within this share of the exact one
 * (203 → 600: ×3 for ×2.956, text 1.5 % larger; 152 → 300: ×2; 152 → 600: ×4); otherwise the
 * command is refused at publish.
 */
export const FONT_TOLERANCE = 0.05

/** The whole factor a bitmap font scales by, or undefined when none is within FONT_TOLERANCE. */
export function wholeFactor (s: Scale): number | undefined {
  const n = Math.round(s.factor)
  return n >= 1 && Math.abs(n - s.factor) <= s.factor * FONT_TOLERANCE ? n : undefined
}

/** Millimetres (or points) to dots at `dpi`. */
export function mmToDots (mm: number, dpi: number): number {
  return Math.round(mm * dpi / 25.4)
}
