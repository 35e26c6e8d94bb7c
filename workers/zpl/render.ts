// Renders labels: one label per row of the label's dataset, printed `copies` times via ^PQ.
// Output is collected as strings and encoded once; byte counts are tracked without encoding.
import { RenderError } from '../errors.js'
import type { EvalScope } from '../template/expressions.js'
import type { RenderLimits } from '../types.js'
import type { CompiledLabel } from './compile.js'
import { escapeFieldData, isSafeParameter } from './escape.js'

const literalBytes = new WeakMap<CompiledLabel, number[]>()

/** UTF-8 size of each literal chunk, computed once per compiled label. */
function sizes (label: CompiledLabel): number[] {
  let s = literalBytes.get(label)
  if (s === undefined) {
    s = label.body.map(c => typeof c === 'string' ? Buffer.byteLength(c) : 0)
    literalBytes.set(label, s)
  }
  return s
}

function copiesOf (label: CompiledLabel, scope: EvalScope, maxLabels: number): number {
  if (typeof label.copies === 'number') return label.copies
  const v = label.copies(scope)
  // A row without a quantity prints once rather than failing the whole batch.
  if (v === null || v === undefined) return 1
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN
  if (!Number.isInteger(n) || n < 0) {
    throw new RenderError('RENDER_FAILED', `label.copies: must be a whole number >= 0, got ${JSON.stringify(v)} (row ${scope.index + 1})`)
  }
  // Bounded here so a huge quantity fails as a limit, not as a giant number in ^PQ.
  return Math.min(n, maxLabels + 1)
}

export function renderLabels (
  compiled: CompiledLabel | { label?: CompiledLabel },
  scope: EvalScope,
  limits: Pick<RenderLimits, 'maxLabels' | 'maxBytes'>
): { bytes: Uint8Array, labelCount: number } {
  const label = 'body' in compiled ? compiled : compiled.label
  if (label === undefined) throw new RenderError('RENDER_FAILED', 'template is not a label')
  const data = Object.hasOwn(scope.data, label.rows) ? scope.data[label.rows] : null
  if (data !== null && data !== undefined && !Array.isArray(data)) throw new RenderError('RENDER_FAILED', `label.rows: dataset ${label.rows} is not a list of rows`)
  const rows = data ?? []
  const body = label.body
  const literalSize = sizes(label)
  const out: string[] = []
  let bytes = 0
  let labelCount = 0
  scope.pages = rows.length
  for (let i = 0; i < rows.length; i++) {
    scope.row = rows[i]
    scope.index = i
    scope.page = i + 1
    const copies = copiesOf(label, scope, limits.maxLabels)
    if (copies === 0) continue
    labelCount += copies
    if (labelCount > limits.maxLabels) throw new RenderError('RENDER_LIMIT_EXCEEDED', `labels exceed maxLabels (${limits.maxLabels})`)
    for (let j = 0; j < body.length; j++) {
      const chunk = body[j]
      if (typeof chunk === 'string') { out.push(chunk); bytes += literalSize[j]; continue }
      const text = chunk.value(scope)
      let piece: string
      if (chunk.mode === 'field') {
        piece = escapeFieldData(text, chunk.indicator)
      } else if (isSafeParameter(text)) {
        piece = text
      } else {
        throw new RenderError('RENDER_FAILED', `${chunk.where}: ${chunk.src}: value ${JSON.stringify(text.slice(0, 40))} is not allowed outside field data (letters, digits, space and . , + - only)`)
      }
      out.push(piece)
      bytes += piece.length // escaped and safe values are ASCII: one byte per character
    }
    const end = copies > 1 ? `^PQ${copies}^XZ\n` : '^XZ\n'
    out.push(end)
    bytes += end.length
    if (bytes > limits.maxBytes) throw new RenderError('RENDER_LIMIT_EXCEEDED', `output exceeds maxBytes (${limits.maxBytes})`)
  }
  return { bytes: Buffer.from(out.join(''), 'utf8'), labelCount }
}
