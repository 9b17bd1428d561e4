// A script that uses the registry's bash and then stops must exit by itself: the bash worker it
// leaves idle must not keep the process alive (Node's worker stdout holds a MessagePort).
import { fileURLToPath } from 'node:url'
import { spawnProcess } from '@yfs/core/testing'
import { expect, it } from 'vitest'
import { WORKER_IDLE_MS } from '../src/bash-worker/pool.js'

const SCRIPT = fileURLToPath(new URL('./fixtures/one-bash-run.ts', import.meta.url))

it('a library script that ran bash exits on its own once the worker idles out', async () => {
  // Node itself with tsx's loader (not the tsx bin, whose own child a kill would leave running).
  const child = spawnProcess(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const started = Date.now()
  const code = await child.waitForExit(15_000, 'the script to exit on its own')
  expect(child.stdout()).toContain('ran')
  expect(code).toBe(0)
  // Ended by the idle timeout, not by the kill (tsx start-up included).
  expect(Date.now() - started).toBeLessThan(WORKER_IDLE_MS + 10_000)
}, 20_000)
