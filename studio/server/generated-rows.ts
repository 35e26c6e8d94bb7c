// Rows made up from the datasets' declared fields, for a preview before any real data exists:
// a `single` dataset gets one row, a `multiple` one three, each value shaped by its field type.
import type { DatasetDef, FieldDef, TemplateDefinition } from '../../engine/template/definition.js'
import type { DatasetValues, Row } from '../../engine/types.js'

export const GENERATED_ROWS = 3

function value (f: FieldDef, n: number): unknown {
  switch (f.type) {
    case 'integer': return n
    case 'decimal': return (n * 12.5).toFixed(2)
    case 'boolean': return n % 2 === 1
    case 'date': return `2026-01-${String(n).padStart(2, '0')}`
    case 'datetime': return `2026-01-${String(n).padStart(2, '0')}T09:00:00Z`
    case 'integer[]': return [n, n + 1]
    case 'string[]': return [`${f.name} ${n}a`, `${f.name} ${n}b`]
    // A currency code is checked by formatCurrency: a made-up string would fail every render.
    default: return /currency/i.test(f.name) ? 'EUR' : `${f.name} ${n}`
  }
}

function row (d: DatasetDef, n: number): Row {
  return Object.fromEntries(d.fields.map((f) => [f.name, value(f, n)]))
}

export function generatedRows (def: TemplateDefinition): DatasetValues {
  const out: DatasetValues = {}
  for (const d of def.datasets ?? []) {
    out[d.code] = d.cardinality === 'single'
      ? row(d, 1)
      : Array.from({ length: GENERATED_ROWS }, (_, i) => row(d, i + 1))
  }
  return out
}
