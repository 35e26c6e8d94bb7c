// A render's time limit, as the cancel signal Piscina and the output stream listen to. An
// EventEmitter rather than an AbortController: the controller, its signal and one abort listener
// cost the HTTP thread ~8.5 µs per render against ~1 µs for this (node, 200,000 of each), and
// every render makes one. Piscina takes either kind (its AbortSignalEventEmitter: once/off).
import { EventEmitter } from 'node:events'

/** What a cancellable wait needs of a deadline (tests may pass any emitter with `aborted`). */
export interface CancelSignal {
  readonly aborted: boolean
  once: (event: 'abort', listener: () => void) => unknown
  off: (event: 'abort', listener: () => void) => unknown
}

export class Deadline extends EventEmitter implements CancelSignal {
  aborted = false
  private readonly timer: NodeJS.Timeout

  constructor (ms: number) {
    super()
    this.timer = setTimeout(() => { this.abort() }, ms)
  }

  abort (): void {
    if (this.aborted) return
    this.aborted = true
    this.emit('abort')
  }

  /** The render ended: the timer goes, nothing fires. */
  clear (): void { clearTimeout(this.timer) }
}

/** The error a wait cut short by its deadline throws (name AbortError, as an AbortSignal's). */
export function deadlineError (): Error {
  const err = new Error('the render reached its time limit')
  err.name = 'AbortError'
  return err
}
