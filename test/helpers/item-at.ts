// Index reads in tests: an item the test expects, or a failed assertion that says which one is
// missing (under noUncheckedIndexedAccess an index read is `T | undefined`).
import assert from 'node:assert/strict'

/** Item `i` of `xs` (negative: from the end, as Array.prototype.at); fails the test when there is none. */
export function itemAt<T> (xs: ArrayLike<T>, i: number): T {
  const x = xs[i < 0 ? xs.length + i : i]
  assert.ok(x !== undefined, `expected an item at ${i} of ${xs.length}`)
  return x
}
