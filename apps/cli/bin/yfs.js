#!/usr/bin/env node
// The `yfs` command in the repository: src/main.ts as one cached bundle of the sources
// (./dev-bundle.cjs: through tsx, loading the server's and the agent tools' modules took seconds
// at every start); where that bundle can be neither found nor built, through tsx.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
await require('./dev-bundle.cjs').runBundled(
  fileURLToPath(new URL('../src/main.ts', import.meta.url)),
  'yfs',
  async () => {
    const { tsImport } = await import('tsx/esm/api')
    await tsImport('../src/main.ts', import.meta.url)
  },
)
