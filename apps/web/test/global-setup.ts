/**
 * Global setup of the `web` test project: make sure Chromium is there (installs it when it can,
 * else the browser suites skip with the reason) and that apps/web/dist is built from the current
 * sources, so `vitest run --project web` works on its own, not only through `pnpm test`.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from './harness.js'

function run(script: string): void {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', script)], { stdio: 'inherit' })
  if (result.status !== 0) throw new Error(`scripts/${script} failed with ${result.status}`)
}

export default function setup(): void {
  run('ensure-chromium.mjs')
  run('build-web.mjs')
}
