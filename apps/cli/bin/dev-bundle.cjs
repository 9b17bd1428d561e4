// The checkout's `yfs` as cached ES module bundles (the command, and `yfs sync` on its own), built
// with esbuild from the TypeScript sources the first time they are run and again whenever a
// source changes.
//
// Why: through tsx, every module (some two hundred for `yfs sync`, more for the server and the
// agent tools) is resolved and loaded through loader hooks on another thread: about a second
// before `yfs sync` does anything, and two before `yfs serve` listens, on every start. A bundle
// is what the installed package runs (scripts/build.ts, dist/), with two differences: the
// workspace packages are bundled too (here they are sources), and every other import is pinned to
// the file Node would load from the importing source, so one copy of each package (of yjs above
// all) is loaded, as under tsx. A source's `import.meta.url` stays its own file's URL (workers,
// the web app's build and packages are found from it).
//
// Fresh means: the same checkout, esbuild, Node, lockfile and this file, and every bundled source
// with the size and mtime it had when built. Anything else rebuilds (a quarter to half a second).
// The cache lives in apps/cli/node_modules/.cache/yfs-dev (outside git). YFS_DEV_BUNDLE=0 runs
// through tsx; YFS_DEV_BUNDLE_DEBUG=1 says why a bundle could not be used.
'use strict'
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs')
const { builtinModules } = require('node:module')
const { dirname, join, resolve, sep } = require('node:path')
const { pathToFileURL } = require('node:url')

const REPO = resolve(__dirname, '../../..')
const CACHE = join(__dirname, '../node_modules/.cache/yfs-dev')
const builtins = new Set(builtinModules)

/** What, besides the sources, a bundle depends on: when one of these changes, it is rebuilt. */
function keyOf(esbuildVersion) {
  const mtime = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0
  return JSON.stringify({
    // A copy of the checkout elsewhere builds its own: the pinned imports name this one's files.
    repo: REPO,
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
  const cache = options.cacheDir ?? CACHE
  const outfile = join(cache, `${name}.mjs`)
  const stampFile = join(cache, `${name}.inputs.json`)
  // The version from its manifest: loading esbuild itself took 16–24 ms of every start.
  const key = keyOf(require('esbuild/package.json').version)
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
      // A workspace source's `import.meta.url` stays its own file's URL: a worker, the web app's
      // build or a package resolved next to a module is found where it is under tsx.
      b.onLoad({ filter: /\.(c|m)?tsx?$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined
        const text = readFileSync(args.path, 'utf8')
        if (!text.includes('import.meta.')) return undefined
        const url = pathToFileURL(args.path)
        return {
          contents: text
            .replace(/\bimport\.meta\.url\b/g, JSON.stringify(url.href))
            .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path))
            .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path))),
          loader: args.path.endsWith('x') ? 'tsx' : 'ts',
        }
      })
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
  const result = await require('esbuild').build({
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

/**
 * Run `entry` from its bundle (see `devBundle`), or through `throughTsx` where no bundle can be had
 * or YFS_DEV_BUNDLE=0 says so; resolves once the entry module has run.
 */
async function runBundled(entry, name, throughTsx) {
  let bundle
  if (process.env.YFS_DEV_BUNDLE !== '0')
    try {
      bundle = await devBundle(entry, name)
    } catch (error) {
      if (process.env.YFS_DEV_BUNDLE_DEBUG) console.error('yfs: dev bundle:', error)
    }
  // Only a bundle that could not be had falls back: an error of the command itself is its own.
  return bundle ? import(bundle) : throughTsx()
}

module.exports = { devBundle, runBundled }
