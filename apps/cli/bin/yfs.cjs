#!/usr/bin/env node
// The `yfs` command. CommonJS so that `yfs sync` gets its libuv thread pool size before Node starts
// the pool (an ES module entry is itself read through the pool, too late to size it; see
// @yfs/sync/thread-pool), then the ES module entry bin/yfs.js as before.
'use strict'
if (process.argv[2] === 'sync') {
  require('@yfs/sync/thread-pool').useSyncThreadPool()
  // `yfs sync` loads its own command only (@yfs/sync/yfs-sync-main, the same command): the server's
  // and the agent tools' modules were most of its start-up, seconds on a busy machine.
  import('tsx/esm/api').then(({ tsImport }) =>
    tsImport('@yfs/sync/yfs-sync-main', require('node:url').pathToFileURL(__filename).href),
  )
} else import('./yfs.js')
