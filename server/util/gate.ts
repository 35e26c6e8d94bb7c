// A counting gate: at most `limit` holders at once, the others wait in arrival order. close()
// turns every waiter (and every later caller) away with false, so work that has not started yet
// can be handed back at shutdown instead of being waited for. With a key (a workspace), one key
// holds at most `perKey` places: the rest are left to other keys even when this one has more
// waiting, and a waiter over its key's share lets later waiters of other keys go first.
export interface Gate {
  /** True once a place is held (call leave() after, with the same key); false when the gate was closed first. */
  enter: (key?: string) => Promise<boolean>
  leave: (key?: string) => void
  close: () => void
  /** Holders and waiters. */
  stats: () => { active: number, waiting: number }
}

interface Waiter { key: string, resolve: (entered: boolean) => void }

export function createGate (limit: number, perKey = limit): Gate {
  let active = 0
  let closed = false
  const waiting: Waiter[] = []
  const holders = new Map<string, number>()
  const holding = (key: string): number => holders.get(key) ?? 0
  const hold = (key: string, n: number): void => {
    const now = holding(key) + n
    if (now === 0) holders.delete(key)
    else holders.set(key, now)
  }
  return {
    async enter (key = '') {
      if (closed) return false
      if (active < limit && holding(key) < perKey && !waiting.some((w) => holding(w.key) < perKey)) {
        active++
        hold(key, 1)
        return true
      }
      return await new Promise<boolean>((resolve) => waiting.push({ key, resolve }))
    },
    leave (key = '') {
      hold(key, -1)
      const i = waiting.findIndex((w) => holding(w.key) < perKey)
      if (i < 0) { active--; return }
      // The place passes straight to the next waiter (active unchanged), so nobody can overtake it.
      const next = waiting.splice(i, 1)[0]!
      hold(next.key, 1)
      next.resolve(true)
    },
    close () {
      closed = true
      for (const w of waiting.splice(0)) w.resolve(false)
    },
    stats: () => ({ active, waiting: waiting.length })
  }
}
