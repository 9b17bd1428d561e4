/**
 * Benchmark helpers: interleaved A/B timing with warm-up, medians with min/max,
 * progress on stderr, and Markdown tables. Ratios matter more than
 * milliseconds on shared, noisy machines (STYLE.md §7).
 */

export interface Sample {
  median: number
  min: number
  max: number
}

export function summarize(times: number[]): Sample {
  const sorted = [...times].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! }
}

export async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/** Run A and B alternately `runs` times after one warm-up each; return both samples. */
export async function interleave(
  runs: number,
  a: () => Promise<unknown> | unknown,
  b: () => Promise<unknown> | unknown,
): Promise<[Sample, Sample]> {
  await a()
  await b()
  const ta: number[] = []
  const tb: number[] = []
  for (let i = 0; i < runs; i++) {
    ta.push(await time(a))
    tb.push(await time(b))
  }
  return [summarize(ta), summarize(tb)]
}

export const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3))
export const fmtSample = (s: Sample) => `${fmt(s.median)} ms (${fmt(s.min)}–${fmt(s.max)})`

export function progress(message: string): void {
  process.stderr.write(`\r\x1b[K${message}`)
}

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}
