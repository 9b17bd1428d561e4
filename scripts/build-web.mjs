#!/usr/bin/env node
// Builds the web app (apps/web/dist) when the build is missing or stale. "Stale" means a hash of
// every input (the app's sources and config, the sources of the packages it bundles, the lockfile)
// differs from the one recorded after the last build, so a branch switch or an edit both count
// and an unchanged tree costs only the hashing. `--force` always builds.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'apps/web/dist')
const stamp = join(dist, '.build-hash')
const inputs = [
  'apps/web/src',
  'apps/web/index.html',
  'apps/web/public',
  'apps/web/vite.config.ts',
  'apps/web/svelte.config.js',
  'apps/web/tsconfig.json',
  'apps/web/package.json',
  'packages/core/src',
  'packages/core/package.json',
  'packages/client/src',
  'packages/client/package.json',
  'packages/markdown/src',
  'packages/markdown/package.json',
  'pnpm-lock.yaml',
]

function* files(path) {
  if (!existsSync(path)) return
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name === 'dist') continue
      yield* files(join(path, name))
    }
  } else yield path
}

function inputHash() {
  const hash = createHash('sha256')
  for (const input of inputs) {
    for (const file of files(join(root, input))) {
      hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0')
    }
  }
  return hash.digest('hex')
}

const wanted = inputHash()
const force = process.argv.includes('--force')
const current = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : ''
if (!force && current === wanted && existsSync(join(dist, 'index.html'))) process.exit(0)

process.stdout.write(`build-web: ${current ? 'sources changed' : 'no build yet'}, building apps/web\n`)
const result = spawnSync(
  process.execPath,
  [join(root, 'apps/web/node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
  {
    cwd: join(root, 'apps/web'),
    stdio: 'inherit',
  },
)
if (result.status !== 0) {
  process.stderr.write('build-web: vite build failed\n')
  process.exit(result.status ?? 1)
}
writeFileSync(stamp, `${wanted}\n`)
