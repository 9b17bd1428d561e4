import { AsyncLocalStorage } from 'node:async_hooks'
import { Bash, InMemoryFs } from 'just-bash'
import { describe, expect, it } from 'vitest'
import { afterThisTask, hostSetTimeout, outsideScripts } from './host-timers.js'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('host timers', () => {
  it('run their callbacks outside the async context that scheduled them', async () => {
    const als = new AsyncLocalStorage<string>()
    const seen: (string | undefined)[] = []
    await new Promise<void>((resolve) =>
      als.run('script', () => {
        hostSetTimeout(() => seen.push(als.getStore()), 0)
        afterThisTask(() => {
          seen.push(als.getStore())
          resolve()
        })
      }),
    )
    await tick()
    expect(seen).toEqual([undefined, undefined])
    expect(als.run('script', () => outsideScripts(() => als.getStore()))).toBeUndefined()
  })
})

// Learning test (just-bash 3.4.2, defence in depth, `promise_then_after_deactivate`): a `.then`
// registered inside a script, on a promise that settles once the script has ended, never runs.
// It is why work a script starts and that may outlive it (bulk stores, held rows, timers) is
// started outside scripts (host-timers.ts). Fails when just-bash changes this.
describe("just-bash's Promise.then after a script has ended", () => {
  async function thenAfterTheScript(register: (settled: Promise<void>, ran: () => void) => void) {
    let settle!: () => void
    const settled = new Promise<void>((resolve) => {
      settle = resolve
    })
    let ran = false
    // Called by a script's `echo x > /f`, as our filesystem is (custom commands run trusted).
    class Registering extends InMemoryFs {
      override async writeFile(...args: Parameters<InMemoryFs['writeFile']>): Promise<void> {
        register(settled, () => {
          ran = true
        })
        return super.writeFile(...args)
      }
    }
    const result = await new Bash({ fs: new Registering() }).exec('echo x > /f')
    expect(result.exitCode).toBe(0)
    settle()
    await tick()
    return ran
  }

  it('skips a callback registered in the script', async () => {
    expect(await thenAfterTheScript((settled, ran) => void settled.then(ran))).toBe(false)
  })

  it('runs one registered through outsideScripts', async () => {
    expect(await thenAfterTheScript((settled, ran) => void outsideScripts(() => settled.then(ran)))).toBe(
      true,
    )
  })
})
