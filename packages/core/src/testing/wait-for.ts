/**
 * Poll until a condition holds, within a bound: the one polling helper of
 * yfs's tests (a fixed sleep either wastes time or flakes; an unbounded wait
 * hangs a suite). The check may throw while the state is still settling (a
 * file not there yet): the error is kept and named if the time runs out.
 */
export interface WaitForOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number
  /** Pause between checks (default 10 ms). */
  intervalMs?: number
}

/**
 * Resolve with the check's first truthy value; reject with `timed out waiting
 * for <what>` (and the last error the check threw) after `timeoutMs`.
 * `what` may be a function, called only to word the error (it can describe the state then).
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string | (() => string | Promise<string>),
  options: number | WaitForOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 10 } =
    typeof options === 'number' ? { timeoutMs: options } : options
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value as NonNullable<T>
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) {
      const described = typeof what === 'function' ? await what() : what
      throw new Error(`timed out waiting for ${described}${last ? `: ${String(last)}` : ''}`)
    }
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}
