import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { processCpuMs, spawnProcess, stopSpawned } from './spawn-process.js'
import { waitFor } from './wait-for.js'

const node = (script: string, options = {}) => spawnProcess(process.execPath, ['-e', script], options)

describe('spawnProcess', () => {
  it('keeps stdout and stderr, waits for a line and for the exit', async () => {
    const p = node(
      `process.stdout.write('one\\n'); process.stderr.write('two\\n'); setTimeout(() => process.exit(3), 50)`,
    )
    await p.waitForOutput('one', 'the first line', 10_000)
    await p.waitForOutput(/two/, 'the second line', 10_000)
    expect(await p.waitForExit(10_000)).toBe(3)
    expect(p.stdout()).toBe('one\n')
    expect(p.stderr()).toBe('two\n')
  })

  it('hands stdout over line by line', async () => {
    const lines: string[] = []
    const p = node(
      `process.stdout.write('{"a":1}\\n{"b"'); setTimeout(() => process.stdout.write(':2}\\n'), 20)`,
      {
        onStdoutLine: (line: string) => lines.push(line),
      },
    )
    await p.exited
    expect(lines).toEqual(['{"a":1}', '{"b":2}'])
  })

  it('names what the process printed when a wait times out, and kills it', async () => {
    const p = node(`process.stderr.write('still starting\\n'); setInterval(() => {}, 1000)`)
    await expect(p.waitForOutput('ready', 'the ready line', 2_000)).rejects.toThrow(
      /timed out after 2000 ms waiting for the ready line[\s\S]*still starting/,
    )
    expect(await p.exited).toBeNull()
  })

  it('rejects a wait when the process exits first, with its output', async () => {
    const p = node(`console.error('bad flag'); process.exit(2)`)
    await expect(p.waitForOutput('ready', 'the ready line', 10_000)).rejects.toThrow(
      /exited with 2 before the ready line[\s\S]*bad flag/,
    )
  })

  it('kills a process that outlives its exit bound', async () => {
    const p = node(`setInterval(() => {}, 1000)`)
    await expect(p.waitForExit(200, 'it to end')).rejects.toThrow(
      'timed out after 200 ms waiting for it to end',
    )
    expect(await p.exited).toBeNull()
  })

  it('signals the whole group with group, and stopSpawned ends what still runs', async () => {
    const p = spawnProcess(
      'sh',
      [
        '-c',
        `${JSON.stringify(process.execPath)} -e "console.log(process.pid); setInterval(() => {}, 1000)"; echo never`,
      ],
      {
        group: true,
      },
    )
    const pid = Number(await p.waitForOutput((s) => /^(\d+)\n/.exec(s.stdout())?.[1], 'the pid', 10_000))
    const q = node('setInterval(() => {}, 1000)')
    await stopSpawned()
    expect(await p.exited).toBeNull()
    expect(await q.exited).toBeNull()
    // The shell's child went with it (a zombie until its new parent reaps it: /proc says which).
    const gone = () => {
      try {
        return !/^State:\s+[RSD]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
      } catch {
        return true
      }
    }
    await waitFor(gone, `process ${pid} to end`)
  })
})

describe.skipIf(process.platform !== 'linux')('processCpuMs', () => {
  it("counts a child's CPU time as it computes, and nothing while it sleeps", async () => {
    // Busy until it has spent 400 ms of CPU by its own count (not of wall time: on a loaded
    // machine that may be far less CPU), then says so and sleeps.
    const busy = spawnProcess(process.execPath, [
      '-e',
      "while (process.cpuUsage().user < 400_000); process.stdout.write('idle\\n'); setTimeout(() => {}, 60000)",
    ])
    try {
      await busy.waitForOutput('idle', 'the busy loop to end', 30_000)
      const spent = processCpuMs(busy.child.pid!)
      expect(spent).toBeGreaterThanOrEqual(300)
      // Asleep: the time it waits for its timer costs no CPU, however long the wait.
      await new Promise((done) => setTimeout(done, 300))
      expect(processCpuMs(busy.child.pid!) - spent).toBeLessThan(100)
    } finally {
      await busy.stop('SIGKILL')
    }
  })
})
