// A render worker without Piscina, for the flow-control test: runs the real task entry
// (render-task.ts) on a real thread with the channel it was given, and posts the result back.
import { parentPort, workerData } from 'node:worker_threads'
import renderTask, { type RenderTaskInput } from '../../workers/render-task.js'

const result = await renderTask((workerData as { task: RenderTaskInput }).task)
parentPort?.postMessage(result)
