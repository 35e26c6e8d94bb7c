// Durations in config and CLI flags: `500ms`, `30s`, `5m`, `2h`, `1d` (a bare number is milliseconds).
const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration (text: string): number | undefined {
  const match = PATTERN.exec(text.trim())
  if (match === null) return undefined
  const [, amount, unit = 'ms'] = match
  // PATTERN admits UNITS' keys only
  const value = Number(amount) * UNITS[unit as keyof typeof UNITS]
  return Number.isFinite(value) ? Math.round(value) : undefined
}

export function formatDuration (ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNITS[unit] && ms % UNITS[unit] === 0) return `${ms / UNITS[unit]}${unit}`
  }
  return `${ms}ms`
}
