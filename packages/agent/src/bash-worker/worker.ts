/**
 * A bash worker thread: runs one just-bash script at a time on a proxied
 * workspace filesystem (fs-proxy.ts), so a script that computes for long,
 * or a single slow command, never blocks the main thread's event loop.
 *
 * Invariant: each run is a fresh `Bash` (no shell state survives a run);
 * the run's result or failure is the last message on its port, which is
 * then closed.
 */
import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { Bash } from 'just-bash'
import { capText } from '../cap-text.js'
import { createFsProxy } from './fs-proxy.js'
import { type HostToWorker, type RunMessage, toWire, type WorkerToHost } from './protocol.js'
import { withRunLocalFolders } from './run-local-fs.js'

if (!parentPort) throw new Error('bash-worker: not started as a worker thread')

// On Linux a nice value is per thread (pid 0: the calling thread): a busy script gives way to the
// thread that serves clients whenever both want the CPU. Elsewhere it would renice the process.
if (process.platform === 'linux') {
  try {
    setPriority(0, 10)
  } catch {
    // Not allowed here (some sandboxes): the script runs at normal priority.
  }
}

parentPort.on('message', async (run: RunMessage) => {
  const { port, syncPort } = run
  const send = (message: WorkerToHost) => {
    // The writes the script went on from reach the host before its outcome.
    proxy.flush()
    port.postMessage(message)
  }
  const proxy = createFsProxy(port, syncPort, run.flag, run.methods, run.writeAllowance)
  const controller = new AbortController()
  port.on('message', (message: HostToWorker) => {
    if (message.type === 'abort') controller.abort()
    else proxy.settle(message)
  })
  try {
    // just-bash's system folders are kept here for the run, not asked of the host (run-local-fs.ts).
    const fs = withRunLocalFolders(proxy.fs)
    const bash = new Bash({ fs, cwd: run.cwd, env: run.env, executionLimits: run.limits })
    const result = await bash.exec(run.script, {
      signal: controller.signal,
      ...(run.stdin ? { stdin: run.stdin } : {}),
    })
    // Cut here: a huge output would otherwise be copied to the main thread, stalling it.
    const cap = (text: string) =>
      run.maxOutputChars === undefined ? text : capText(text, run.maxOutputChars)
    send({ type: 'done', stdout: cap(result.stdout), stderr: cap(result.stderr), exitCode: result.exitCode })
  } catch (error) {
    send({ type: 'failed', error: toWire(error) })
  } finally {
    port.close()
    syncPort.close()
  }
})
