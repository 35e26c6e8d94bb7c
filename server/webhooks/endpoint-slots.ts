// Per-endpoint in-flight cap (tenant isolation): one endpoint — typically one workspace's slow or
// failing receiver — holds at most `max` of this process's sends at once, so it cannot take all
// of the sender's concurrency from other workspaces' endpoints. The claim skips deliveries of
// endpoints that are full and takes no more of one endpoint than it has room for.
export interface EndpointSlots {
  /** Endpoints with no room left (the claim's exclusion list). */
  full (): string[]
  room (endpointId: string): number
  take (endpointId: string): void
  give (endpointId: string): void
}

export function createEndpointSlots (max: number): EndpointSlots {
  const busy = new Map<string, number>()
  return {
    full: () => [...busy].filter(([, n]) => n >= max).map(([id]) => id),
    room: (id) => Math.max(0, max - (busy.get(id) ?? 0)),
    take (id) { busy.set(id, (busy.get(id) ?? 0) + 1) },
    give (id) {
      const n = (busy.get(id) ?? 1) - 1
      if (n <= 0) busy.delete(id)
      else busy.set(id, n)
    }
  }
}
