import { createProgram } from './src/cli.js'

setInterval(() => {
  console.error(
    'handles:',
    (process as any)
      ._getActiveHandles()
      .map(
        (h: any) =>
          h.constructor?.name +
          ' ' +
          (h._idleTimeout ?? '') +
          ' ' +
          (h.remoteAddress ?? '') +
          ' ' +
          (h._onTimeout?.toString().slice(0, 80) ?? ''),
      ),
  )
}, 3000).unref()
setTimeout(() => process.exit(3), 7000)
await createProgram().parseAsync([
  'node',
  'yfs',
  'search',
  'write the tour',
  '--server',
  'ws://127.0.0.1:4399',
  '--workspace',
  'demo',
  '--token',
  'yfs_J4zUBlAymgU89ie-6DLo8Pne4Dz55C-gmc2NaSB6TD0',
])
console.error('action done')
