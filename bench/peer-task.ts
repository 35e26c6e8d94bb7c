// Piscina task for bench/service.ts: the engine's peers (plain pdfkit, pdfmake) on the same
// invoice rows, in worker threads like the engine, so all three use every core the same way.
import { plainPdfkit, viaPdfmake, type InvoiceData } from './engine-baselines.js'

export interface PeerTask { peer: 'pdfkit' | 'pdfmake', data: InvoiceData }

export default async function peerTask (task: PeerTask): Promise<number> {
  const bytes = task.peer === 'pdfkit' ? await plainPdfkit(task.data) : await viaPdfmake(task.data)
  return bytes.length
}
