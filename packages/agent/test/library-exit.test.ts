// A script that uses the registry's bash and then stops must exit by itself: the bash worker it
// leaves idle must not keep the process alive (Node's worker stdout holds a MessagePort).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { WORKER_IDLE_MS } from '../src/bash-worker/pool.js'

const SCRIPT = fileURLToPath(new URL('./fixtures/one-bash-run.ts', import.meta.url))

it('a library script that ran bash exits on its own once the worker idles out', async () => {
  // Node itself with tsx's loader (not the tsx bin, whose own child a kill would leave running).
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const started = Date.now()
  const code = await new Promise<number | null>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.on('exit', (c) => {
      clearTimeout(kill)
      resolve(c)
    })
  })
  expect(out).toContain('ran')
  expect(code).toBe(0)
  // Ended by the idle timeout, not by the kill (tsx start-up included).
  expect(Date.now() - started).toBeLessThan(WORKER_IDLE_MS + 10_000)
}, 20_000)
