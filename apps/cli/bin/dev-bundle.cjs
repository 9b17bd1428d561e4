// A checkout's `yfs sync` as one cached ES module bundle, built with esbuild from the TypeScript
// sources the first time it is run and again whenever a source changes.
//
// Why: through tsx, every module of the command (some two hundred, over five workspace packages)
// is resolved and loaded through loader hooks on another thread: about a second before the daemon
// does anything, on every start. The bundle is what the installed package runs
// (scripts/build.ts, dist/yfs-sync.mjs), with two differences: the workspace packages are bundled
// too (here they are sources), and every other import is pinned to the file Node would load from
// the importing source, so one copy of each package (of yjs above all) is loaded, as under tsx.
//
// Fresh means: the same esbuild, Node, lockfile and this file, and every bundled source with the
// size and mtime it had when built. Anything else rebuilds (about a quarter of a second). The cache
// lives in apps/cli/node_modules/.cache/yfs-dev (outside git). YFS_DEV_BUNDLE=0 runs through tsx.
'use strict'
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs')
const { builtinModules } = require('node:module')
const { join, resolve } = require('node:path')
const { pathToFileURL } = require('node:url')

const REPO = resolve(__dirname, '../../..')
const CACHE = join(__dirname, '../node_modules/.cache/yfs-dev')
const builtins = new Set(builtinModules)

/** What, besides the sources, a bundle depends on: when one of these changes, it is rebuilt. */
function keyOf(esbuildVersion) {
  const mtime = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0
  return JSON.stringify({
    esbuild: esbuildVersion,
    node: process.version,
    lockfile: mtime(join(REPO, 'pnpm-lock.yaml')),
    launcher: mtime(__filename),
  })
}

/** True when every input still has the size and mtime recorded at the build. */
function inputsUnchanged(inputs) {
  for (const [file, [mtimeMs, size]] of Object.entries(inputs)) {
    const stat = statSync(file, { throwIfNoEntry: false })
    if (!stat || stat.mtimeMs !== mtimeMs || stat.size !== size) return false
  }
  return true
}

/** Write `text` to `file` through a temp file and a rename: a concurrent start reads old or new, never half. */
function writeAtomic(file, text) {
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}

/**
 * The file URL of an up-to-date bundle of `entry` (a module specifier resolved from apps/cli, or
 * an absolute path), named `name`, kept in `options.cacheDir` (default: the cache above). Throws
 * when it can be neither found fresh nor built: the caller then runs the sources through tsx.
 */
async function devBundle(entry, name, options = {}) {
  const esbuild = require('esbuild')
  const cache = options.cacheDir ?? CACHE
  const outfile = join(cache, `${name}.mjs`)
  const stampFile = join(cache, `${name}.inputs.json`)
  const key = keyOf(esbuild.version)
  try {
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8'))
    if (stamp.key === key && statSync(outfile, { throwIfNoEntry: false }) && inputsUnchanged(stamp.inputs))
      return pathToFileURL(outfile).href
  } catch {
    // No stamp yet, or unreadable: build.
  }
  const pinImports = {
    name: 'yfs-pin-imports',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === 'pinning') return undefined
        if (args.path.startsWith('node:') || builtins.has(args.path)) return { external: true }
        // Workspace packages are sources: bundled.
        if (args.path.startsWith('@yfs/')) return undefined
        const found = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: 'pinning',
        })
        if (found.errors.length > 0) return { errors: found.errors }
        return { path: found.path, external: true }
      })
    },
  }
  const started = Date.now()
  const result = await esbuild.build({
    absWorkingDir: REPO,
    entryPoints: [require.resolve(entry)],
    outfile,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // Node's own conditions only (import or require, node, default): no 'module', which esbuild adds by default.
    conditions: [],
    plugins: [pinImports],
    logLevel: 'silent',
  })
  mkdirSync(cache, { recursive: true })
  for (const file of result.outputFiles) writeAtomic(file.path, file.contents)
  const inputs = {}
  let settled = true
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = resolve(REPO, input)
    const stat = statSync(file)
    inputs[file] = [stat.mtimeMs, stat.size]
    // Saved during the build (or within a coarse clock's tick of it): the bundle may hold the
    // version before, so it is used this once and not stamped fresh.
    if (stat.mtimeMs > started - 2000) settled = false
  }
  if (settled) writeAtomic(stampFile, JSON.stringify({ key, inputs }))
  return pathToFileURL(outfile).href
}

module.exports = { devBundle }
