// The libuv thread pool `yfs sync` runs with. CommonJS on purpose: the size must be in the
// environment before Node starts the pool, which it does at the first asynchronous file call —
// for an ES module entry that is reading the entry itself, so only a CommonJS entry (bin/yfs.cjs
// of apps/cli, bin/yfs-sync.cjs here) can still set it. The daemon keeps `concurrency` fsyncs,
// file reads and the watcher's lstats in flight at once; the default 4 threads queue them.
'use strict'

/** Threads for `yfs sync` (the initial pass of 10,000 files measured fastest at 16). */
const SYNC_THREAD_POOL_SIZE = 16

/** Set UV_THREADPOOL_SIZE for this process unless the user set one; returns the size in effect from now on. */
function useSyncThreadPool() {
  if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = String(SYNC_THREAD_POOL_SIZE)
  return Number(process.env.UV_THREADPOOL_SIZE)
}

module.exports = { SYNC_THREAD_POOL_SIZE, useSyncThreadPool }
