/**
 * A concurrency limit for async work (file reads, workspace writes), so a
 * 10,000-entry folder never opens 10,000 file descriptors at once.
 */

/** Run `fn` over `items` with at most `concurrency` calls in flight; resolves when all are done. */
export async function forEachLimited<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
}
