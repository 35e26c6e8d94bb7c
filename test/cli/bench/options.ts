// BenchOptions for the tests: short windows, no warm-up, trusting the fake server's certificate.
import type { BenchOptions } from '../../../cli/bench/types.js'
import { KEY } from './fake-server.js'
import type { FakeServer } from './fake-server.js'

export function benchAgainst (fake: FakeServer, overrides: Partial<BenchOptions> = {}): BenchOptions {
  return {
    url: fake.url,
    key: KEY,
    template: 'INVOICE',
    parameters: [],
    async: false,
    connections: 4,
    durationMs: 1000,
    warmupMs: 0,
    timeoutMs: 10_000,
    jobTimeoutMs: 10_000,
    ca: fake.ca,
    insecure: false,
    maxErrorRate: 0.01,
    ...overrides
  }
}

export function assertOrdered (l: {
  min: number
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
}): boolean {
  return l.min <= l.p50 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.p999 && l.p999 <= l.max
}

export const sum = (m: Record<string, number>): number => Object.values(m).reduce((a, b) => a + b, 0)
