// Stand-alone entry of `yfs sync` (the same command is mounted into `yfs`): the only module with import-time side effects.
import { createSyncCommand } from './command.js'

createSyncCommand()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`yfs sync: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
