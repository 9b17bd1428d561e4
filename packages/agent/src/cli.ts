#!/usr/bin/env node
/**
 * The agent package's own `yfs` bin (only `mcp`); the full `yfs` CLI with
 * `serve`, `workspace` and `token` is apps/cli's. The only module with
 * import-time side effects.
 */
import { Command } from 'commander'
import { createMcpCommand } from './mcp-command.js'

await new Command('yfs')
  .description('yfs — a collaborative filesystem for AI agents and people')
  .addCommand(createMcpCommand())
  .parseAsync(process.argv)
