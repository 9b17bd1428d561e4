/**
 * The host's timers, read once at load. just-bash's sandbox blocks reading the timer globals
 * while a script runs (it keeps its own copies the same way), and our filesystem code runs
 * inside scripts (rows, content, batches are written from a shell command), so every module
 * that schedules work takes its timers from here.
 *
 * Their callbacks run in the async context of this module's load, outside any script: work
 * scheduled from a script (a batch's store, a held truncation, a held row) often runs after that
 * script has ended, and just-bash's defence in depth then skips every `.then` callback registered
 * in the ended script's context (`promise_then_after_deactivate`: the value passes through, the
 * callback never runs), so a chain of ours started there would stop half way, silently.
 */
import { captureHostContext, type HostRunner } from './host-context.js'

const nativeSetTimeout = setTimeout
const nativeSetImmediate = typeof setImmediate === 'function' ? setImmediate : undefined
/**
 * Runs `fn` outside any script's context (the context this module loads in): for promise chains
 * of ours that a script starts and that may settle after it ended (a bulk store and the rows it
 * unpins, a copy kept connected until its sync settles), whose `.then` callbacks would otherwise
 * be skipped then. The timers below run their callbacks through it.
 */
export const outsideScripts: HostRunner = captureHostContext()

/** `setTimeout(fn, ms)`, with `fn` run outside any script's context. */
export function hostSetTimeout(fn: () => void, ms?: number): ReturnType<typeof setTimeout> {
  return nativeSetTimeout(() => outsideScripts(fn), ms)
}

export const hostClearTimeout = clearTimeout

/**
 * Run `fn` once the current task is over (after the microtasks queued so far), outside any
 * script's context: `setImmediate` in Node, a 0 ms timeout in browsers.
 */
export function afterThisTask(fn: () => void): void {
  if (nativeSetImmediate) nativeSetImmediate(() => outsideScripts(fn))
  else hostSetTimeout(fn, 0)
}

/** The wall clock (ms), read once at load like the timers. */
export const hostNow: () => number = Date.now
