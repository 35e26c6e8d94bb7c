// A counting gate: at most `limit` holders at once, the others wait in arrival order. close()
// turns every waiter (and every later caller) away with false, so work that has not started yet
// can be handed back at shutdown instead of being waited for.
export interface Gate {
  /** True once a place is held (call leave() after); false when the gate was closed first. */
  enter: () => Promise<boolean>
  leave: () => void
  close: () => void
  /** Holders and waiters. */
  stats: () => { active: number, waiting: number }
}

export function gate (limit: number): Gate {
  let active = 0
  let closed = false
  const waiting: Array<(entered: boolean) => void> = []
  return {
    async enter () {
      if (closed) return false
      if (active < limit) { active++; return true }
      return await new Promise<boolean>((resolve) => waiting.push(resolve))
    },
    leave () {
      const next = waiting.shift()
      // The place passes straight to the next waiter (active unchanged), so nobody can overtake it.
      if (next !== undefined) next(true)
      else active--
    },
    close () {
      closed = true
      for (const w of waiting.splice(0)) w(false)
    },
    stats: () => ({ active, waiting: waiting.length })
  }
}
