#!/usr/bin/env node
// The `yfs` bin of the installed package (copied to dist/yfs.cjs by scripts/build.ts; the
// repository's bin is bin/yfs.cjs, which runs the TypeScript sources). CommonJS so that `yfs sync`
// sizes the libuv thread pool before Node starts it (see @yfs/sync/thread-pool), then the
// bundled ES module entry: yfs-sync.mjs (the sync command alone, a faster start) or yfs.mjs.
'use strict'
// `yfs sync --data DIR` (or --postgres) serves the store in process: the whole CLI does that.
const servesStore = process.argv.some((a) => /^--(data|postgres)(=|$)/.test(a))
if (process.argv[2] === 'sync') require('./thread-pool.cjs').useSyncThreadPool()
if (process.argv[2] === 'sync' && !servesStore) {
  import('./yfs-sync.mjs')
} else import('./yfs.mjs')
