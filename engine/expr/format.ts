// Locale formatting. Intl objects cost tens of microseconds to build, so each language gets one
// Formatters object (kept for the life of the worker) that lazily caches its Intl instances.

export type DateStyle = 'short' | 'medium' | 'long' | 'iso'

export interface Formatters {
  readonly language: string
  /** Grouped number; `decimals` fixes the fraction digits, otherwise up to 3 are shown. */
  number (n: number, decimals?: number): string
  currency (n: number, currency: string): string
  /** Dates print in UTC: DATE columns carry no zone and must not shift by a day. */
  date (d: Date, style: DateStyle): string
}

const DEFAULT_LANGUAGE = 'en'
const byLanguage = new Map<string, Formatters>()

export function formattersFor (language: string | undefined): Formatters {
  const key = language ?? DEFAULT_LANGUAGE
  let f = byLanguage.get(key)
  if (f === undefined) {
    f = new LocaleFormatters(canonical(key))
    // Bounded: languages come from callers; an unknown tag maps to 'en' but still takes a slot.
    if (byLanguage.size >= 64) byLanguage.clear()
    byLanguage.set(key, f)
  }
  return f
}

function canonical (language: string): string {
  try {
    const [tag] = Intl.getCanonicalLocales(language) // an empty list for an empty string
    return tag !== undefined && Intl.NumberFormat.supportedLocalesOf(tag).length > 0 ? tag : DEFAULT_LANGUAGE
  } catch {
    return DEFAULT_LANGUAGE
  }
}

class LocaleFormatters implements Formatters {
  private plain: Intl.NumberFormat | undefined
  private readonly fixed: Intl.NumberFormat[] = []
  private readonly currencies = new Map<string, Intl.NumberFormat>()
  private readonly dates = new Map<DateStyle, Intl.DateTimeFormat>()

  constructor (readonly language: string) {}

  number (n: number, decimals?: number): string {
    if (decimals === undefined) {
      this.plain ??= new Intl.NumberFormat(this.language)
      return this.plain.format(n)
    }
    let f = this.fixed[decimals] // a cache filled on first use
    if (f === undefined) {
      f = new Intl.NumberFormat(this.language, { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
      this.fixed[decimals] = f
    }
    return f.format(n)
  }

  currency (n: number, currency: string): string {
    let f = this.currencies.get(currency)
    if (f === undefined) {
      // Throws RangeError for a malformed code; the expression wrapper reports it.
      f = new Intl.NumberFormat(this.language, { style: 'currency', currency })
      if (this.currencies.size < 64) this.currencies.set(currency, f)
    }
    return f.format(n)
  }

  date (d: Date, style: DateStyle): string {
    if (style === 'iso') return d.toISOString().slice(0, 10)
    let f = this.dates.get(style)
    if (f === undefined) {
      f = new Intl.DateTimeFormat(this.language, { dateStyle: style, timeZone: 'UTC' })
      this.dates.set(style, f)
    }
    return f.format(d)
  }
}
