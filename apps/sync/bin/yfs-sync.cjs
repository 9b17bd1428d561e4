#!/usr/bin/env node
// Stand-alone `yfs sync` (`pnpm sync`; `yfs sync` of apps/cli is the same command). CommonJS so
// that the thread pool size is set before Node starts the pool (see src/thread-pool.cjs), then the
// TypeScript entry runs through tsx (packages ship sources).
'use strict'
require('../src/thread-pool.cjs').useSyncThreadPool()
import('tsx/esm/api').then(({ tsImport }) =>
  tsImport('../src/main.ts', require('node:url').pathToFileURL(__filename).href),
)
