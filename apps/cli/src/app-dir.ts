/**
 * Where `yfs serve` and `yfs start` find the built web app by default: in the
 * installed package, `web/` next to the bundle (`dist/web`, copied there by
 * scripts/build.ts); in the repository, the web app's build (`apps/web/dist`,
 * `node scripts/build-web.mjs`).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** True when this module runs from the installed package's bundle (its `dist/web` beside it). */
export function runsInstalled(moduleUrl: string = import.meta.url): boolean {
  return existsSync(join(fileURLToPath(new URL('./web', moduleUrl)), 'index.html'))
}

/** The packed `dist/web` when this module runs from the bundle, else the monorepo's `apps/web/dist`. */
export function defaultAppDir(moduleUrl: string = import.meta.url): string {
  if (runsInstalled(moduleUrl)) return fileURLToPath(new URL('./web', moduleUrl))
  return fileURLToPath(new URL('../../web/dist', moduleUrl))
}
