#!/usr/bin/env node
// The `yfs` command in the repository: src/main.ts as one cached bundle of the sources
// (./dev-bundle.cjs: through tsx, loading the server's and the agent tools' modules took seconds
// at every start); where that bundle can be neither found nor built, through tsx.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const throughTsx = async () => {
  const { tsImport } = await import('tsx/esm/api')
  await tsImport('../src/main.ts', import.meta.url)
}
let bundle
if (process.env.YFS_DEV_BUNDLE !== '0')
  try {
    bundle = await require('./dev-bundle.cjs').devBundle(
      fileURLToPath(new URL('../src/main.ts', import.meta.url)),
      'yfs',
    )
  } catch (error) {
    if (process.env.YFS_DEV_BUNDLE_DEBUG) console.error('yfs: dev bundle:', error)
  }
// Only a bundle that could not be had falls back: an error of the command itself is its own.
if (bundle) await import(bundle)
else await throughTsx()
