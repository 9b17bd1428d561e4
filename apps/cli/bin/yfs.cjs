#!/usr/bin/env node
// The `yfs` command. CommonJS so that `yfs sync` gets its libuv thread pool size before Node starts
// the pool (an ES module entry is itself read through the pool, too late to size it; see
// @yfs/sync/thread-pool), then the ES module entry bin/yfs.js as before.
'use strict'
// `yfs sync --data DIR` (or --postgres) serves the store in process: the whole CLI does that.
const servesStore = process.argv.some((a) => /^--(data|postgres)(=|$)/.test(a))
if (process.argv[2] === 'sync') require('@yfs/sync/thread-pool').useSyncThreadPool()
if (process.argv[2] === 'sync' && !servesStore) {
  // `yfs sync` loads its own command only (@yfs/sync/yfs-sync-main, the same command): the server's
  // and the agent tools' modules were most of its start-up, seconds on a busy machine. It runs as
  // one cached bundle of the sources (./dev-bundle.cjs: loading them through tsx took a second);
  // where that bundle can be neither found nor built, through tsx.
  require('./dev-bundle.cjs').runBundled('@yfs/sync/yfs-sync-main', 'yfs-sync', () =>
    import('tsx/esm/api').then(({ tsImport }) =>
      tsImport('@yfs/sync/yfs-sync-main', require('node:url').pathToFileURL(__filename).href),
    ),
  )
} else import('./yfs.js')
