/**
 * Builds the installable `yfs` (`pnpm pack` runs it: prepack) into dist/:
 *
 *   dist/yfs.cjs         the bin (bin/yfs-dist.cjs): `yfs sync` → yfs-sync.mjs, the rest → yfs.mjs
 *   dist/yfs.mjs         src/main.ts bundled with apps/server and apps/sync (both ship TypeScript
 *                        sources and are not published), one ES module for plain Node
 *   dist/yfs-sync.mjs    @yfs/sync/yfs-sync-main bundled the same way
 *   dist/thread-pool.cjs @yfs/sync/thread-pool, as it is
 *   dist/web/            the web app's build (apps/web/dist), served by `yfs start` and `yfs serve`
 *
 * Every other package stays an import, installed from this package's `dependencies`: the @yfs/*
 * libraries (published as JavaScript), native and heavy modules (better-sqlite3, pg, Hocuspocus)
 * and yjs above all, which must exist once at runtime — bundling a copy would give the server a
 * Y.Doc class other than @yfs/core's. The build fails when an import is not such a dependency.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const webDist = fileURLToPath(new URL('../../web/dist', import.meta.url))
const require = createRequire(import.meta.url)

/** The workspace apps bundled in (they ship sources and are not published). */
const BUNDLED = ['@yfs/server', '@yfs/sync']

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!
}

const builtins = new Set(builtinModules)
const imported = new Set<string>()

/** Bare imports stay imports, except the bundled apps; records which packages the bundle needs. */
const externals: Plugin = {
  name: 'yfs-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || builtins.has(args.path)) return { external: true }
      const name = packageName(args.path)
      if (BUNDLED.includes(name)) return undefined
      imported.add(name)
      return { external: true }
    })
  },
}

if (!existsSync(join(webDist, 'index.html')))
  throw new Error(`no web app build at ${webDist}: run \`node scripts/build-web.mjs\` first`)

rmSync(dist, { recursive: true, force: true })
mkdirSync(dist, { recursive: true })
await build({
  absWorkingDir: root,
  entryPoints: {
    yfs: join(root, 'src/main.ts'),
    'yfs-sync': require.resolve('@yfs/sync/yfs-sync-main'),
  },
  outdir: dist,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  plugins: [externals],
  logLevel: 'warning',
})

const missing = [...imported].filter((name) => !(name in manifest.dependencies)).sort()
if (missing.length > 0)
  throw new Error(`the bundle imports packages that are not dependencies of @yfs/cli: ${missing.join(', ')}`)

copyFileSync(join(root, 'bin/yfs-dist.cjs'), join(dist, 'yfs.cjs'))
copyFileSync(require.resolve('@yfs/sync/thread-pool'), join(dist, 'thread-pool.cjs'))
cpSync(webDist, join(dist, 'web'), { recursive: true, filter: (src) => !src.endsWith('.build-hash') })
console.log(`built ${dist} (imports: ${[...imported].sort().join(', ')})`)
