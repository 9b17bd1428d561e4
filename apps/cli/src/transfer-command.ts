/**
 * `yfs import <dir|file.tar>` and `yfs export <dir|file.tar>`: a whole tree
 * into or out of a workspace (server or data folder), byte for byte, with
 * modes, modification times and symlinks (tree-transfer.ts). A progress bar
 * on stderr when it is a terminal (never with --json).
 */
import { statSync } from 'node:fs'
import { Command, Option } from 'commander'
import { withProgress } from './progress-bar.js'
import {
  importTree,
  readDiskTree,
  readTarTree,
  readWorkspaceTree,
  summarize,
  type TransferSummary,
  writeDiskTree,
  writeTarTree,
} from './tree-transfer.js'
import { openWorkspace, workspaceOptions } from './workspace-flags.js'

const isTar = (path: string) => /\.tar$/i.test(path)

function report(verb: string, s: TransferSummary, json: boolean): void {
  process.stdout.write(
    json
      ? `${JSON.stringify(s)}\n`
      : `${verb} ${s.files} files (${s.bytes} bytes), ${s.folders} folders, ${s.symlinks} symlinks\n`,
  )
}

export function createImportCommand(): Command {
  return workspaceOptions(
    new Command('import')
      .description('copy a folder or a .tar file into a workspace (bytes, modes, times and symlinks kept)')
      .argument('<source>', 'a folder, or a tar file (name ending in .tar)'),
  )
    .addOption(new Option('--to <path>', 'workspace folder to import into').default('/'))
    .addHelpText(
      'after',
      `
The whole tree is read and checked first, then stored in batches: a tar entry that would land
outside the target (absolute, ..), a device or a FIFO refuses the import before anything is written.
Exit codes: 0 imported, 2 refused or failed (the reason on stderr).

Examples:
  yfs import ./project --data ./.yfs --workspace demo --to /project
  yfs import backup.tar --server ws://127.0.0.1:4321 --workspace team --token $T --json`,
    )
    .action(async (source: string, flags) => {
      try {
        const json = flags.json === true
        const fromTar = isTar(source) && statSync(source).isFile()
        const entries = await withProgress('reading', json, (p) =>
          fromTar ? readTarTree(source, p) : readDiskTree(source, p),
        )
        const ws = await openWorkspace(flags, 'write')
        try {
          const summary = await withProgress('importing', json, (p) =>
            importTree(ws.fs, entries, flags.to, p),
          )
          report('imported', summary, json)
        } finally {
          await ws.close()
        }
      } catch (error) {
        process.stderr.write(`yfs import: ${(error as Error).message}\n`)
        process.exitCode = 2
      }
    })
}

export function createExportCommand(): Command {
  return workspaceOptions(
    new Command('export')
      .description(
        'copy a workspace folder to a folder or a .tar file (bytes, modes, times and symlinks kept)',
      )
      .argument('<target>', 'a folder (created; must be empty or new), or a tar file (name ending in .tar)'),
  )
    .addOption(new Option('--from <path>', 'workspace folder to export').default('/'))
    .addHelpText(
      'after',
      `
Exit codes: 0 exported, 2 failed (the reason on stderr).

Examples:
  yfs export ./copy --data ./.yfs --workspace demo
  yfs export team.tar --server ws://127.0.0.1:4321 --workspace team --token $T --from /docs`,
    )
    .action(async (target: string, flags) => {
      try {
        const json = flags.json === true
        const ws = await openWorkspace(flags, 'read')
        let entries: Awaited<ReturnType<typeof readWorkspaceTree>>
        try {
          entries = await withProgress('reading', json, (p) => readWorkspaceTree(ws.fs, flags.from, p))
        } finally {
          await ws.close()
        }
        await withProgress('writing', json, (p) =>
          isTar(target) ? writeTarTree(target, entries, p) : writeDiskTree(target, entries, p),
        )
        report('exported', summarize(entries), json)
      } catch (error) {
        process.stderr.write(`yfs export: ${(error as Error).message}\n`)
        process.exitCode = 2
      }
    })
}
