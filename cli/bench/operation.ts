// One synchronous render: POST /v1/render, body read to the end. Latency runs from the intended
// start (the actual start in the closed loop, the scheduled one in the open loop).
import { performance } from 'node:perf_hooks'
import type { RenderRequest } from '../../client/index.js'
import type { BenchApi } from './api.js'
import type { Recorder } from './recorder.js'
import type { BenchOptions } from './types.js'

/** `intendedStart` is a performance.now() timestamp. */
export type Operation = (index: number, intendedStart: number) => Promise<void>

/** Request bodies built once; request i uses bodies[i % length] (the client adds `async`). */
export function renderBodies (options: Pick<BenchOptions, 'template' | 'parameters' | 'environment' | 'format'>): RenderRequest[] {
  const sets: Array<Record<string, unknown> | undefined> =
    options.parameters.length === 0 ? [undefined] : options.parameters
  return sets.map((parameters) => ({
    template: options.template,
    environment: options.environment,
    parameters,
    format: options.format
  }))
}

/** Request `index`'s body (renderBodies makes at least one). */
export function bodyFor (bodies: RenderRequest[], index: number): RenderRequest {
  const body = bodies[index % bodies.length]
  if (body === undefined) throw new Error('bench: no request bodies')
  return body
}

export function syncOperation (api: BenchApi, bodies: RenderRequest[], rec: Recorder): Operation {
  return async (index, intendedStart) => {
    const out = await api.render(bodyFor(bodies, index))
    const now = performance.now()
    rec.answer(out.errorCode)
    rec.completedAll++
    if (!rec.counted(intendedStart)) return
    rec.bytes += out.bytes
    rec.request(now - intendedStart, out.status, out.errorCode)
    rec.done(out.status >= 200 && out.status < 300, now)
  }
}
