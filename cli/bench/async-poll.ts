// One asynchronous render: submit with `async: true` (202 + job), then poll GET /v1/jobs/{jobId}
// every 50 ms, backing off ×1.5 to 500 ms, until `succeeded` or `failed`. The completion latency
// is therefore quantized by the poll interval (up to +50 ms early on, +500 ms for long jobs).
// Polls answered 429, 503 or not at all are transient (the spec's retry rules): keep polling.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { RenderRequest } from '../../client/index.js'
import type { BenchApi } from './api.js'
import { bodyFor, type Operation } from './operation.js'
import type { Recorder } from './recorder.js'

interface JobView { jobId?: unknown, status?: unknown, error?: { code?: unknown } | null }

const FIRST_POLL_MS = 50
const MAX_POLL_MS = 500

export function asyncOperation (
  api: BenchApi,
  bodies: RenderRequest[],
  rec: Recorder,
  jobTimeoutMs: number
): Operation {
  return async (index, intendedStart) => {
    const counted = rec.counted(intendedStart)
    const submit = await api.submit(bodyFor(bodies, index))
    rec.answer(submit.errorCode)
    if (counted) {
      rec.bytes += submit.bytes
      rec.request(performance.now() - intendedStart, submit.status, submit.errorCode)
    }
    const finish = (outcome: keyof Recorder['outcomes'], code?: string): void => {
      const now = performance.now()
      rec.completedAll++
      if (!counted) return
      rec.outcomes[outcome]++
      if (code !== undefined) rec.code(code)
      if (outcome === 'succeeded' || outcome === 'failed') { rec.completion.recordValue(Math.max(1, Math.round((now - intendedStart) * 1000))) }
      rec.done(outcome === 'succeeded', now)
    }
    let job = (submit.job ?? {}) as JobView
    const jobId = job.jobId
    if ((submit.status !== 202 && submit.status !== 200) || typeof jobId !== 'string') {
      finish('submitFailed')
      return
    }
    const deadline = intendedStart + jobTimeoutMs
    let wait = FIRST_POLL_MS
    while (job.status !== 'succeeded' && job.status !== 'failed') {
      if (performance.now() + wait > deadline) {
        finish('timedOut', 'JOB_WAIT_TIMEOUT')
        return
      }
      await sleep(wait)
      wait = Math.min(MAX_POLL_MS, Math.round(wait * 1.5))
      const poll = await api.job(jobId)
      if (counted) {
        rec.bytes += poll.bytes
        rec.poll(poll.status, poll.errorCode)
      }
      if (poll.status === 0 || poll.status === 429 || poll.status === 503) continue
      if (poll.status !== 200 || typeof poll.job?.status !== 'string') {
        finish('pollFailed')
        return
      }
      job = poll.job
    }
    if (job.status === 'succeeded') finish('succeeded')
    else finish('failed', typeof job.error?.code === 'string' ? job.error.code : 'JOB_FAILED')
  }
}
