// Rows fed into a render while they are read (issue 15): a MessagePort per task. The main
// thread posts a big dataset's rows in batches as the data source delivers them and forgets
// them, so they exist once (in the worker) instead of in the main thread and again as the
// task's clone. The worker acknowledges each batch as it takes it; a sender more than `window`
// batches ahead waits (and so pauses its data-source read): the main thread holds at most a
// few batches whatever the size of the result. The worker's task waits for `end` before it
// renders; `abort` (the read failed, the row limit was passed) ends the task without a render.
import { MessageChannel } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import type { Row } from '../engine/types.js'
import type { FeedMessage } from '../worker/task-protocol.js'

export interface RowFeedSender {
  /** The worker's end of the channel: transferred with the task (RenderTaskOptions.rows). */
  port: MessagePort
  /** Appends rows to a dataset; resolves when fewer than `window` batches wait for the worker. */
  rows (dataset: string, rows: Row[]): Promise<void>
  /** A whole dataset's value (small datasets, `single` rows). */
  value (dataset: string, value: Row | Row[] | null): void
  /** Every dataset is complete: the worker renders. */
  end (): void
  /** No render: the worker's task ends at once. Also stops waiting senders. */
  abort (): void
}

/** Thrown to a sender whose feed was aborted (the render ended or the read failed). */
export class FeedClosed extends Error {}

export function rowFeedSender (window = 4): RowFeedSender {
  const { port1: mine, port2: theirs } = new MessageChannel()
  let unacked = 0
  let closed = false
  let waiting: { resolve: () => void, reject: (err: Error) => void } | undefined
  mine.on('message', () => {
    unacked--
    if (waiting !== undefined && unacked < window) {
      const w = waiting
      waiting = undefined
      w.resolve()
    }
  })
  const close = (): void => {
    if (closed) return
    closed = true
    waiting?.reject(new FeedClosed('the render ended before its rows were read'))
    waiting = undefined
    mine.close()
  }
  return {
    port: theirs,
    async rows (dataset, rows) {
      if (closed) throw new FeedClosed('the render ended before its rows were read')
      mine.postMessage({ dataset, rows } satisfies FeedMessage)
      unacked++
      if (unacked < window) return
      await new Promise<void>((resolve, reject) => { waiting = { resolve, reject } })
    },
    value (dataset, value) {
      if (!closed) mine.postMessage({ dataset, value } satisfies FeedMessage)
    },
    end () {
      if (!closed) mine.postMessage({ end: true } satisfies FeedMessage)
    },
    abort () {
      if (!closed) mine.postMessage({ abort: true } satisfies FeedMessage)
      close()
    }
  }
}
