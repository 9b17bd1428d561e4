/**
 * Benchmark: a second client opens a 500-file workspace. Measures the time
 * until the main doc is synced (connectWorkspace resolves) and the time of
 * `grep -r` over every file through just-bash (every content doc loaded over
 * the one socket). Reference in the same run: the same grep on an in-memory
 * YjsFileSystem (no network), interleaved, reported as a ratio.
 */
import { connectWorkspace } from '@yfs/client'
import { createFileSystem } from '@yfs/core'
import { Bash } from 'just-bash'
import { median } from './stats.js'

export interface OpenResult {
  files: number
  mainMs: number[]
  grepMs: number[]
  memoryGrepMs: number[]
}

function fileText(i: number): string {
  const lines: string[] = []
  for (let l = 0; l < 20; l++) lines.push(`line ${l} of file ${i}${l === 7 && i % 10 === 0 ? ' needle' : ''}`)
  return `${lines.join('\n')}\n`
}

const pathOf = (i: number) => `/src/d${i % 20}/file${i}.txt`

export async function seedWorkspace(
  url: string,
  workspace: string,
  token: string,
  files: number,
): Promise<void> {
  const c = await connectWorkspace({ url, workspace, token })
  for (let d = 0; d < 20; d++) await c.fs.mkdir(`/src/d${d}`, { recursive: true })
  for (let i = 0; i < files; i++) await c.fs.writeFile(pathOf(i), fileText(i))
  await c.flush(60_000)
  await c.close()
}

export async function benchOpenWorkspace(
  url: string,
  workspace: string,
  token: string,
  files: number,
  runs: number,
): Promise<OpenResult> {
  const expected = Math.ceil(files / 10)
  const memory = createFileSystem()
  for (let d = 0; d < 20; d++) await memory.mkdir(`/src/d${d}`, { recursive: true })
  for (let i = 0; i < files; i++) await memory.writeFile(pathOf(i), fileText(i))

  const result: OpenResult = { files, mainMs: [], grepMs: [], memoryGrepMs: [] }
  for (let run = 0; run <= runs; run++) {
    const t0 = performance.now()
    const c = await connectWorkspace({ url, workspace, token })
    const t1 = performance.now()
    const out = await new Bash({ fs: c.fs, cwd: '/' }).exec('grep -r needle /src')
    const t2 = performance.now()
    const lines = out.stdout.split('\n').filter(Boolean).length
    if (lines !== expected) throw new Error(`grep found ${lines} lines, expected ${expected}: ${out.stderr}`)
    await c.close()

    const m0 = performance.now()
    const ref = await new Bash({ fs: memory, cwd: '/' }).exec('grep -r needle /src')
    const m1 = performance.now()
    if (ref.stdout !== out.stdout) throw new Error('in-memory grep differs from the synced one')
    if (run === 0) continue // warm-up
    result.mainMs.push(t1 - t0)
    result.grepMs.push(t2 - t1)
    result.memoryGrepMs.push(m1 - m0)
  }
  return result
}

export function summarizeOpen(r: OpenResult) {
  return {
    mainMedian: median(r.mainMs),
    grepMedian: median(r.grepMs),
    ratio: median(r.grepMs) / median(r.memoryGrepMs),
  }
}
