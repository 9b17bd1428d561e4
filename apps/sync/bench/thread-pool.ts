/**
 * The benches time `syncFolder` in their own process, so they run with the
 * thread pool `yfs sync` gets from its launcher (src/thread-pool.cjs). That
 * size must be in the environment before Node starts the pool, which an ES
 * module entry (this bench) is too late for: without UV_THREADPOOL_SIZE set,
 * the bench runs itself again with it set and this process only waits for
 * it. A size the user set is kept (e.g. `UV_THREADPOOL_SIZE=4` to compare).
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

const { useSyncThreadPool } = createRequire(import.meta.url)('../src/thread-pool.cjs') as {
  useSyncThreadPool(): number
}

/** The thread pool size this process runs with (`yfs sync`'s unless the user set one); may re-run the bench. */
export function withSyncThreadPool(): number {
  if (process.env.UV_THREADPOOL_SIZE) return Number(process.env.UV_THREADPOOL_SIZE)
  useSyncThreadPool()
  const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  })
  process.exit(child.status ?? 1)
}
