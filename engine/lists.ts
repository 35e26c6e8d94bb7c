// Arrays and strings made from a list with a plain loop, for code that runs once a render over
// short lists (the e-invoice build, the XMP packet). `xs.map(f)` gives its result an elements
// kind that depends on which tier runs it (interpreter, or optimized with map inlined), so the
// code reading the result was deoptimized for a "wrong map" each time its producer tiered up: the
// Factur-X invoice's build and XMP functions were compiled again and again over its first
// thousands of renders (bench/RESULTS.md, 2026-11-27 (evening)). An array grown by push() from
// `[]` keeps one kind once its allocation site has seen what it holds.

/** `xs.map(f)`, as an array grown by push(). */
export function mapped<T, U> (xs: readonly T[], f: (x: T, i: number) => U): U[] {
  const out: U[] = []
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i]!, i)) // i < xs.length
  return out
}

/** `xs.map(f).join('')`, without the array between. */
export function joined<T> (xs: readonly T[], f: (x: T) => string): string {
  let s = ''
  for (let i = 0; i < xs.length; i++) s += f(xs[i]!) // i < xs.length
  return s
}

/**
 * Empties a scratch array that is about to be filled again, keeping its storage. `xs.length = 0`
 * makes V8 drop the backing store, so the next push allocates a new one: ~40 ns and ~150 bytes
 * of garbage each time, and a render clears its per-cell scratch lines and text pieces a few
 * hundred times (~60 KB of an invoice's ~380 KB of allocation). pop() keeps it; for the one to
 * three entries these arrays hold it is a loop of one to three.
 */
export function emptied (xs: unknown[]): void {
  while (xs.length > 0) xs.pop()
}
