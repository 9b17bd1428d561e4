/**
 * `promise`'s value, or `undefined` once `ms` have passed without it (it goes on unwatched).
 * For waits that must end (a shutdown step, a document load waiting for Redis); the timer is
 * cleared when the promise wins, so it keeps nothing alive.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ])
  } finally {
    clearTimeout(timer)
  }
}
