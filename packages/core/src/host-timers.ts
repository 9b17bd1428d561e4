/**
 * The host's timers, read once at load. just-bash's sandbox blocks reading the timer globals
 * while a script runs (it keeps its own copies the same way), and our filesystem code runs
 * inside scripts (rows, content, batches are written from a shell command), so every module
 * that schedules work takes its timers from here.
 */

export const hostSetTimeout = setTimeout
export const hostClearTimeout = clearTimeout

const hostSetImmediate = typeof setImmediate === 'function' ? setImmediate : undefined

/**
 * Run `fn` once the current task is over (after the microtasks queued so far): `setImmediate`
 * in Node, a 0 ms timeout in browsers.
 */
export function afterThisTask(fn: () => void): void {
  if (hostSetImmediate) hostSetImmediate(fn)
  else hostSetTimeout(fn, 0)
}

/** The wall clock (ms), read once at load like the timers. */
export const hostNow: () => number = Date.now
