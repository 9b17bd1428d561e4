/**
 * What JavaScript a page loaded, and its gzipped size: every request of type `script` (entry,
 * static and dynamic imports) recorded from navigation on, mapped to the built file it came from.
 * Used by the budget test and the benchmarks; the server sends files uncompressed, so sizes are
 * computed here with gzip's default level, as `vite build` reports them.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { APP_DIR } from './harness.js'

/** One loaded script. */
export interface LoadedScript {
  /** Path on the server, e.g. `/assets/index-AbC.js`. */
  path: string
  bytes: number
  gzipBytes: number
}

/** Records the scripts `page` requests from now on; call before `goto`. */
export function recordScripts(page: Page): { paths: Set<string> } {
  const paths = new Set<string>()
  page.on('request', (request) => {
    if (request.resourceType() === 'script') paths.add(new URL(request.url()).pathname)
  })
  return { paths }
}

/** Sizes of the recorded scripts, read from the built app. */
export async function measureScripts(paths: Iterable<string>): Promise<LoadedScript[]> {
  const out: LoadedScript[] = []
  for (const path of paths) {
    const body = await readFile(join(APP_DIR, path))
    out.push({ path, bytes: body.byteLength, gzipBytes: gzipSync(body).byteLength })
  }
  return out.sort((a, b) => b.gzipBytes - a.gzipBytes)
}

/** Sum of `gzipBytes`. */
export const totalGzip = (scripts: LoadedScript[]): number => scripts.reduce((n, s) => n + s.gzipBytes, 0)
