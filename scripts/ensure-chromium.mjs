#!/usr/bin/env node
// Makes sure the Chromium the browser tests drive is installed: Debian's `chromium` at
// /usr/bin/chromium (or $YFS_CHROMIUM). When it is missing and we are root on a machine with
// apt-get, installs it (`apt-get update && apt-get install -y chromium`). Otherwise prints why the
// browser tests will be skipped. Never fails the run: the tests themselves skip with the reason.
import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'

const path = process.env.YFS_CHROMIUM || '/usr/bin/chromium'

function executable(file) {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function run(command, args) {
  process.stdout.write(`ensure-chromium: ${command} ${args.join(' ')}\n`)
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  return result.status === 0
}

if (executable(path)) process.exit(0)

const root = typeof process.getuid === 'function' && process.getuid() === 0
const apt = executable('/usr/bin/apt-get')
if (path === '/usr/bin/chromium' && root && apt) {
  if (run('apt-get', ['update']) && run('apt-get', ['install', '-y', 'chromium']) && executable(path)) {
    process.stdout.write(`ensure-chromium: installed ${path}\n`)
    process.exit(0)
  }
  process.stdout.write(`ensure-chromium: installing chromium failed; the browser tests will be skipped\n`)
  process.exit(0)
}
const why = !root ? 'not root' : !apt ? 'no apt-get' : `YFS_CHROMIUM=${path} is set`
process.stdout.write(
  `ensure-chromium: no Chromium at ${path} and cannot install it (${why}); the browser tests will be skipped\n`,
)
