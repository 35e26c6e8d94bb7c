// Worker side of a row feed (the main-thread side: pool/row-feed.ts): takes the batches,
// acknowledging each so the sender may post another, until `end` or `abort`.
import type { MessagePort } from 'node:worker_threads'
import type { DatasetValues, Row } from '../engine/types.js'
import type { FeedMessage } from './task-protocol.js'

/** Worker side: the datasets the feed delivers, or undefined when it was aborted. */
export async function receiveRows (port: MessagePort): Promise<DatasetValues | undefined> {
  const datasets: DatasetValues = {}
  try {
    return await new Promise<DatasetValues | undefined>((resolve) => {
      port.on('message', (m: FeedMessage) => {
        if ('end' in m) { resolve(datasets); return }
        if ('abort' in m) { resolve(undefined); return }
        if ('value' in m) { datasets[m.dataset] = m.value; return }
        port.postMessage(1) // taken: the sender may post another batch
        const list = (datasets[m.dataset] ??= []) as Row[]
        for (const row of m.rows) list.push(row)
      })
      // The main thread's end closed (it gave up on this render).
      port.on('close', () => { resolve(undefined) })
    })
  } finally {
    port.close()
  }
}
