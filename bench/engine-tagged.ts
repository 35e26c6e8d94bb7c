// The tagged-PDF rows of the engine benchmark (issue 34): the example invoice and the sales
// report tagged (the default) against the same documents with `document.pdf.tagged: false`
// (the untagged baseline), measured in the same run as the rest of bench/engine.ts.
import { render } from '../engine/render.js'
import { getCompiled } from '../engine/template/cache.js'
import type { RenderInput } from '../engine/types.js'
import { nth, pairedCpu } from './stats.js'

interface Report { ms: number, cpuMs: number, pages: number, rssMB: number, bytes: number }
type Child = (rows: number, pdf?: string, warm?: number) => Report

/** `document.pdf` of the tagged and untagged variants (bench/engine-pdfa.ts, withStandard). */
export const TAGGED = '{"tagged":true}'
export const UNTAGGED = '{"tagged":false}'

export function taggedSection (untagged: RenderInput, tagged: RenderInput, child: Child): string[] {
  const one = (inp: RenderInput): number => render(getCompiled(inp.versionKey, inp.definition), inp).bytes.length
  for (let i = 0; i < 300; i++) { one(untagged); one(tagged) }
  const paired = pairedCpu(() => one(untagged), [() => one(tagged)], 10, 200)
  const [u, t, ratio] = [paired.baseMs, nth(paired.ms, 0), nth(paired.ratios, 0)]
  const [ub, tb] = [one(untagged), one(tagged)]
  // The 6,000-row report, fresh processes, interleaved: its first render in the process, and its
  // third (two renders of it before: the compiles of its code are done, as in a render thread
  // that has rendered reports before); the 100,000-row report once each way.
  const reports: Record<'untagged' | 'tagged' | 'untaggedWarm' | 'taggedWarm', Report[]> =
    { untagged: [], tagged: [], untaggedWarm: [], taggedWarm: [] }
  for (let i = 0; i < 3; i++) {
    reports.untagged.push(child(6000, UNTAGGED))
    reports.tagged.push(child(6000, TAGGED))
    reports.untaggedWarm.push(child(6000, UNTAGGED, 2))
    reports.taggedWarm.push(child(6000, TAGGED, 2))
  }
  const med = (rs: Report[]): Report => nth([...rs].sort((x, y) => x.cpuMs - y.cpuMs), 1) // the middle one of 3
  const [ru, rt] = [med(reports.untagged), med(reports.tagged)]
  const [wu, wt] = [med(reports.untaggedWarm), med(reports.taggedWarm)]
  const [bu, bt] = [child(100_000, UNTAGGED), child(100_000, TAGGED)]
  const ok = (v: boolean): string => v ? 'met' : '**missed**'
  return [
    '## Tagged PDF (structure tree; document.pdf.tagged: false is the untagged baseline)',
    '',
    '| document | CPU ms/render | peak RSS MB | bytes |',
    '|---|---|---|---|',
    `| invoice (no standard), untagged (10 paired rounds × 200, medians) | ${u.toFixed(3)} | | ${ub} |`,
    `| invoice (no standard), tagged | ${t.toFixed(3)} | | ${tb} |`,
    `| sales report, 6,000 rows / ${ru.pages} pages, untagged (median of 3 processes) | ${ru.cpuMs.toFixed(0)} | ` +
      `${ru.rssMB.toFixed(0)} | ${ru.bytes} |`,
    `| sales report, 6,000 rows, tagged | ${rt.cpuMs.toFixed(0)} | ${rt.rssMB.toFixed(0)} | ${rt.bytes} |`,
    `| sales report, 6,000 rows, untagged, its third render in the process | ${wu.cpuMs.toFixed(0)} | | |`,
    `| sales report, 6,000 rows, tagged, its third render in the process | ${wt.cpuMs.toFixed(0)} | | |`,
    `| sales report, 100,000 rows / ${bu.pages} pages, untagged, streamed | ${bu.cpuMs.toFixed(0)} | ` +
      `${bu.rssMB.toFixed(0)} | ${bu.bytes} |`,
    `| sales report, 100,000 rows, tagged, streamed | ${bt.cpuMs.toFixed(0)} | ${bt.rssMB.toFixed(0)} | ${bt.bytes} |`,
    '',
    `- Tagged invoice: **${ratio.toFixed(2)}×** the untagged invoice's CPU (median of the rounds' ratios; target ≤ 1.25×: ` +
      `${ok(ratio <= 1.25)}).`,
    `- Tagged 6,000-row report: **${(wt.cpuMs / wu.cpuMs).toFixed(2)}×** its untagged CPU time once both have been ` +
      `rendered before in the process (target ≤ 1.3×: ${ok(wt.cpuMs / wu.cpuMs <= 1.3)}); as the first render of a ` +
      `fresh process, whose CPU includes compiling the code it runs, ${(rt.cpuMs / ru.cpuMs).toFixed(2)}×.`,
    `- Tagged 100,000-row report: peak RSS **${(100 * (bt.rssMB / bu.rssMB - 1)).toFixed(0)}%** above untagged ` +
      `(target within 15%: ${ok(bt.rssMB <= bu.rssMB * 1.15)}), ${(bt.cpuMs / bu.cpuMs).toFixed(2)}× its CPU time.`
  ]
}
