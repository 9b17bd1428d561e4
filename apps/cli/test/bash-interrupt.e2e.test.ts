// Ctrl+C at the `yfs bash` prompt: a real `yfs bash` process, fed on a pipe (SIGINT sent to it)
// and under a pseudo-terminal (`script`, Ctrl+C typed as \x03). A line that sleeps for 30 s is
// stopped within seconds, the prompt comes back, the next line runs, and the stopped line's
// status is 130; at an idle terminal prompt Ctrl+C only clears the line.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { spawnProcess, stopSpawned } from '@yfs/core/testing'
import { startTestServer, type TestServer, waitFor } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../bin/yfs.cjs', import.meta.url))

const start = (command: string, args: string[]) => spawnProcess(command, args)

const count = (text: string, part: string) => text.split(part).length - 1

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    console.warn('skipping the pseudo-terminal test: no `script` (util-linux) on this machine')
    return false
  }
}

describe('yfs bash: Ctrl+C stops a running line', () => {
  let t: TestServer
  let token: string
  let other: WorkspaceConnection
  const at = () => ['--server', t.url, '--token', token, '--workspace', 'team']

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('team')).write
    other = await connectWorkspace({ url: t.url, workspace: 'team', token })
  })
  afterAll(async () => {
    await stopSpawned()
    await other?.close()
    await t?.close()
  })

  /** Run a line that marks its start in the workspace and sleeps; resolves once it runs. */
  async function sleepingLine(write: (line: string) => void, marker: string) {
    write(`echo started > /${marker}; sleep 30; echo never`)
    await waitFor(() => other.fs.exists(`/${marker}`), `the line writing /${marker} to run`)
  }

  it('on a pipe: SIGINT stops the line, the next line runs, the status is 130', async () => {
    const r = start(process.execPath, [BIN, 'bash', ...at()])
    const write = (line: string) => r.child.stdin!.write(`${line}\n`)
    await sleepingLine(write, 'pipe-1')
    const stopped = performance.now()
    r.child.kill('SIGINT')
    await waitFor(() => r.output().includes('^C'), 'the prompt after SIGINT', 5000)
    expect(performance.now() - stopped).toBeLessThan(3000)
    write('echo after the interrupt')
    await waitFor(() => r.output().includes('after the interrupt\n'), 'the next line')
    await sleepingLine(write, 'pipe-2')
    r.child.kill('SIGINT')
    await waitFor(() => count(r.output(), '^C') === 2, 'the second interrupt', 5000)
    r.child.stdin!.end()
    expect(await r.exited).toBe(130)
    expect(r.output()).not.toContain('never')
  }, 120_000)

  it.runIf(hasScript())(
    'under a terminal: Ctrl+C stops the line; at an idle prompt it clears the line',
    async () => {
      const command = [process.execPath, BIN, 'bash', ...at()].map((a) => `'${a}'`).join(' ')
      const r = start('script', ['-qfec', command, '/dev/null'])
      const type = (keys: string) => r.child.stdin!.write(keys)
      await waitFor(() => r.output().includes('yfs:/$ '), 'the prompt')
      // Idle: Ctrl+C clears what was typed; the process stays.
      type('echo not run')
      type('\x03')
      await waitFor(() => r.output().includes('^C'), 'the cleared line')
      type('\x03')
      await waitFor(() => r.output().includes('(exit or Ctrl+D to leave)'), 'the hint')
      // Running: Ctrl+C stops the line within seconds.
      await sleepingLine((line) => type(`${line}\r`), 'tty-1')
      const stopped = performance.now()
      type('\x03')
      await waitFor(() => count(r.output(), '^C') === 2, 'the prompt after Ctrl+C', 5000)
      expect(performance.now() - stopped).toBeLessThan(3000)
      // The answer, not the typed line the terminal echoes.
      type('echo after-$((6*7))\r')
      await waitFor(() => r.output().includes('after-42\r\n'), 'the next line')
      await sleepingLine((line) => type(`${line}\r`), 'tty-2')
      type('\x03')
      await waitFor(() => count(r.output(), '^C') === 3, 'the second interrupt', 5000)
      type('exit\r')
      expect(await r.exited).toBe(130)
      expect(r.output()).not.toContain('not run\r\n')
    },
    60_000,
  )
})
