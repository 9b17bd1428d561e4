// `yfs sync` on its own: the entry the `yfs` launcher (apps/cli/bin/yfs.cjs) loads for `yfs sync`,
// so that the other commands' modules (the server, the MCP agent tools: most of `yfs`'s start-up
// time) are not loaded. The same command as `yfs sync` of apps/cli/src/cli.ts; import-time side
// effects, like main.ts.
import { Command } from 'commander'
import { createSyncCommand } from './command.js'

// Usage errors exit 2, as for every other `yfs` command (apps/cli's exitTwoOnUsageErrors).
const exitTwo = (error: { exitCode: number }) => process.exit(error.exitCode === 0 ? 0 : 2)
new Command('yfs')
  .exitOverride(exitTwo)
  .addCommand(createSyncCommand().exitOverride(exitTwo))
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`yfs: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
