// Closed loop (wrk, autocannon): `connections` clients, each sending its next request as soon as
// the previous one is answered. Simple and saturating, but when the server stalls the clients
// stall with it and stop sending, so a stall shows up as only `connections` slow samples
// (coordinated omission). Use the open loop to see what users arriving at a steady rate see.
import { performance } from 'node:perf_hooks'
import type { Operation } from './operation.js'
import type { Clock } from './open-loop.js'

export async function closedLoop (op: Operation, connections: number, clock: Clock): Promise<void> {
  let next = 0
  const client = async (): Promise<void> => {
    for (let now = performance.now(); now < clock.endAt; now = performance.now()) {
      await op(next++, now)
    }
  }
  await Promise.all(Array.from({ length: connections }, client))
}
