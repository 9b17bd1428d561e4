#!/usr/bin/env node
// The `yfs` command. CommonJS so that `yfs sync` gets its libuv thread pool size before Node starts
// the pool (an ES module entry is itself read through the pool, too late to size it; see
// @yfs/sync/thread-pool), then the ES module entry bin/yfs.js as before.
'use strict'
if (process.argv[2] === 'sync') require('@yfs/sync/thread-pool').useSyncThreadPool()
import('./yfs.js')
