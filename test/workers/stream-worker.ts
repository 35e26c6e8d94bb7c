// A render worker without Piscina, for the flow-control test: runs the real task entry
// (render-task.ts) on a real thread with the channel it was given, and posts the result back.
import { parentPort, workerData } from 'node:worker_threads'
import renderTask, { type RenderTaskInput } from '../../workers/render-task.js'

// The test runner also loads this file as a test file (main thread, no task): then it does nothing.
const task = (workerData as { task?: RenderTaskInput } | null)?.task
if (parentPort !== null && task !== undefined) parentPort.postMessage(await renderTask(task))
