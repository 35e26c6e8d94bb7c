// Limits on the shape of a JSON body that a JSON Schema cannot state cheaply: nesting depth
// (a 200,000-deep `context` would overflow the stack of every recursive walk after it, e.g.
// JSON.stringify for a job row) and the number of members: of the body itself, and inside each
// of its members. The schema validator reports every unknown member of an object: a 1 MiB body
// of 110,000 of them cost ~700 ms of the HTTP thread and a 3.8 MB answer before this limit.
// The walk is iterative, so it is safe on any input the body limit lets through.
import { problem } from '../../errors.js'
import type { Problem } from '../../errors.js'

export const MAX_DEPTH = 64
/** Members and items in all, inside one member of the body (`parameters`, `context` …). */
export const MAX_MEMBERS = 10_000
/** Members of the body itself: every request schema names a handful. */
export const MAX_BODY_MEMBERS = 64

/** The first violation, naming the top-level member it is in; undefined when the body is fine. */
export function bodyShapeProblem (body: unknown): Problem | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const members = Object.keys(body)
  if (members.length > MAX_BODY_MEMBERS) {
    const reason = `has more than ${MAX_BODY_MEMBERS} members`
    return problem('VALIDATION_FAILED', `body: ${reason}`, { errors: { body: [reason] } })
  }
  for (const member of members) {
    const value = (body as Record<string, unknown>)[member]
    const reason = shapeViolation(value)
    if (reason !== undefined) {
      return problem('VALIDATION_FAILED', `${member}: ${reason}`, { errors: { [member]: [reason] } })
    }
  }
  return undefined
}

function shapeViolation (root: unknown): string | undefined {
  // The body itself is level 1, its members' values level 2.
  const stack: Array<{ value: unknown, depth: number }> = [{ value: root, depth: 2 }]
  let members = 0
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown, depth: number }
    if (typeof value !== 'object' || value === null) continue
    if (depth > MAX_DEPTH) return `nests deeper than ${MAX_DEPTH} levels`
    const children = Array.isArray(value) ? value : Object.values(value)
    members += children.length
    if (members > MAX_MEMBERS) return `has more than ${MAX_MEMBERS} members and items in all`
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 })
  }
  return undefined
}
