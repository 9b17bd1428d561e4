/**
 * A progress bar for one phase of a long command (import, export, backup, restore): drawn on
 * stderr only when it is a terminal, never with --json, cleared when the phase ends.
 */
import { SingleBar } from 'cli-progress'
import type { Progress } from './tree-transfer.js'

function progressBar(label: string, json: boolean): { update: Progress; stop(): void } {
  if (json || !process.stderr.isTTY) return { update: () => undefined, stop: () => undefined }
  const bar = new SingleBar({
    format: `${label} [{bar}] {value}/{total}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: true,
  })
  let started = false
  return {
    update(done, total) {
      if (!started) {
        bar.start(total || done, 0)
        started = true
      }
      if (total) bar.setTotal(total)
      else if (done > bar.getTotal()) bar.setTotal(done)
      bar.update(done)
    },
    stop: () => started && bar.stop(),
  }
}

/** Run one phase with its bar; the bar is cleared however the phase ends. */
export async function withProgress<T>(
  label: string,
  json: boolean,
  run: (progress: Progress) => Promise<T> | T,
): Promise<T> {
  const bar = progressBar(label, json)
  try {
    return await run(bar.update)
  } finally {
    bar.stop()
  }
}
