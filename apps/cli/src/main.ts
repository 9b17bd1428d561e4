// Entry point of the `yfs` command: the only module with import-time side effects.
import { createProgram, exitTwoOnUsageErrors } from './cli.js'

exitTwoOnUsageErrors(createProgram())
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`yfs: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
