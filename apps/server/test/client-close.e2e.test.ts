/**
 * A client process ends by itself after `close()`, even when it closes before the server has
 * acknowledged its last changes (`close(0)`: no flush). Those changes move to a lingering copy
 * that waits for the server's acknowledgement (up to a day); close must end it, or the process
 * stays alive on its timer (`yfs search` never exited when a read had converted a document).
 */
import { fileURLToPath } from 'node:url'
import { spawnProcess } from '@yfs/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers.js'

describe('closing a workspace connection', () => {
  let t: TestServer
  let token: string
  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('closing')).write
  })
  afterAll(() => t.close())

  it('lets the process exit after close(0) with changes the server has not acknowledged', async () => {
    const script = `
      const { connectWorkspace } = await import('@yfs/client')
      const ws = await connectWorkspace({ url: ${JSON.stringify(t.url)}, workspace: 'closing', token: ${JSON.stringify(token)} })
      // Many files, written and closed at once: some content docs are still unacknowledged.
      for (let i = 0; i < 50; i++) await ws.fs.writeFile('/f' + i + '.txt', 'text ' + i + '\\n')
      await ws.close(0)
      process.stdout.write('closed\\n')
    `
    const child = spawnProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    // Ends on its own (the fix), or is killed after a generous bound (the bug: a day-long timer).
    const code = await child.waitForExit(30_000, 'the process to exit by itself after close(0)')
    const out = child.stdout()
    const err = child.stderr()
    expect(out, err).toContain('closed')
    expect(code, `the process did not exit by itself; stderr: ${err}`).toBe(0)
  }, 60_000)
})
