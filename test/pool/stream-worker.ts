// A render worker without Piscina, for the flow-control test: runs the real task entry
// (render-task.ts) on a real thread with the channel it was given, and posts the result back
// on the parentPort its output pieces use too.
import { Piscina } from 'piscina'
import { parentPort, workerData } from 'node:worker_threads'
import renderTask from '../../worker/render-task.js'
import type { RenderTaskInput } from '../../worker/task-protocol.js'

// The test runner also loads this file as a test file (main thread, no task): then it does nothing.
const task = (workerData as { task?: RenderTaskInput } | null)?.task
if (parentPort !== null && task !== undefined) {
  // The entry answers a success as Piscina's movable wrapper: post the value inside it.
  const answer = await renderTask(task) as unknown as Record<symbol, unknown>
  parentPort.postMessage(Piscina.valueSymbol in answer ? answer[Piscina.valueSymbol] : answer)
}
