/**
 * Where `yfs serve` and `yfs start` find the built web app by default: in the
 * installed package, `web/` next to the bundle (`dist/web`, copied there by
 * scripts/build.ts); in the repository, the web app's build (`apps/web/dist`,
 * `node scripts/build-web.mjs`).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The packed `dist/web` when this module runs from the bundle, else the monorepo's `apps/web/dist`. */
export function defaultAppDir(moduleUrl: string = import.meta.url): string {
  const packed = fileURLToPath(new URL('./web', moduleUrl))
  if (existsSync(join(packed, 'index.html'))) return packed
  return fileURLToPath(new URL('../../web/dist', moduleUrl))
}
