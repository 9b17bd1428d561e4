/**
 * The everyday file commands on a workspace (server or data folder), each the
 * agents' tool of the same job run through the registry, so a person at a
 * terminal sees what an agent sees and is in the activity log as
 * `cli:<user>`: `ls`, `tree`, `stat`, `cat`, `history`, `diff`, `restore`
 * (a version), `trash` (list, or restore from it) and `checkpoint` (create,
 * list, restore). `--json` prints the tool's structured result.
 * Exit codes: 0 done, 1 the operation failed (its POSIX code on stderr),
 * 2 the workspace could not be opened.
 */
import type { ToolRegistry } from '@yfs/agent'
import type { YjsFileSystem } from '@yfs/core'
import { Command, InvalidArgumentError, Option } from 'commander'
import { RESTORE_BACKUP_HELP, restoreBackup } from './backup-command.js'
import { colorDiff, paletteFor } from './colors.js'
import { openWorkspaceOrExit, terminalTools, workspaceOptions } from './workspace-flags.js'

const vfs = (path: string) =>
  path.startsWith('vfs://') ? path : `vfs://${path.startsWith('/') ? '' : '/'}${path}`

interface Run {
  /** Read-only commands open the workspace with a read token. */
  role: 'read' | 'write'
  work(ctx: { fs: YjsFileSystem; tools: ToolRegistry; json: boolean }): Promise<number>
}

/** Run one tool and print its text, or its structured result with --json; the exit code. */
async function tool(
  tools: ToolRegistry,
  json: boolean,
  name: string,
  args: Record<string, unknown>,
  style: (text: string) => string = (text) => text,
): Promise<number> {
  const r = await tools.execute(name, args)
  if (r.isError) {
    process.stderr.write(`${r.content[0]?.text ?? 'failed'}\n`)
    return 1
  }
  process.stdout.write(
    json ? `${JSON.stringify(r.structuredContent)}\n` : `${style(r.content[0]?.text ?? '')}\n`,
  )
  return 0
}

function command(name: string, description: string, examples: string[]): Command {
  return workspaceOptions(new Command(name).description(description)).addHelpText(
    'after',
    `
Exit codes: 0 done, 1 the operation failed (its code on stderr), 2 the workspace could not be opened.

Examples:
${examples.map((e) => `  ${e}`).join('\n')}`,
  )
}

function act(name: string, run: (...args: never[]) => Run) {
  return async (...args: unknown[]) => {
    const flags = args.at(-2) as Record<string, unknown> & { json?: boolean }
    const spec = (run as (...a: unknown[]) => Run)(...args.slice(0, -1))
    const ws = await openWorkspaceOrExit(name, flags as never, spec.role)
    if (!ws) return
    try {
      const tools = terminalTools(ws.fs)
      process.exitCode = await spec.work({ fs: ws.fs, tools, json: flags.json === true })
    } catch (error) {
      process.stderr.write(`yfs ${name}: ${(error as Error).message}\n`)
      process.exitCode = 1
    } finally {
      await ws.close()
    }
  }
}

function positive(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
  return n
}

const AT = '--data ./.yfs --workspace demo'

export function createFileCommands(): Command[] {
  const ls = command('ls', 'list a folder of a workspace', [`yfs ls /src ${AT}`])
    .argument('[path]', 'folder', '/')
    .action(
      act('ls', (path: string) => ({
        role: 'read',
        work: (c) => tool(c.tools, c.json, 'list_directory', { path: vfs(path) }),
      })),
    )
  const tree = command('tree', 'show a folder as a tree', [`yfs tree / --depth 2 ${AT}`])
    .argument('[path]', 'folder', '/')
    .addOption(new Option('--depth <n>', 'levels to show').default(3).argParser(positive))
    .action(
      act('tree', (path: string, flags: { depth: number }) => ({
        role: 'read',
        work: (c) => tool(c.tools, c.json, 'tree', { path: vfs(path), depth: flags.depth }),
      })),
    )
  const stat = command('stat', 'show what a path is: type, size, mode, times, content version', [
    `yfs stat /README.md ${AT}`,
  ])
    .argument('<path>', 'file, folder or symlink')
    .action(
      act('stat', (path: string) => ({
        role: 'read',
        work: (c) => tool(c.tools, c.json, 'stat', { path: vfs(path) }),
      })),
    )
  const cat = command('cat', "print a file's content, byte for byte", [`yfs cat /notes/plan.md ${AT}`])
    .argument('<path>', 'file')
    .action(
      act('cat', (path: string) => ({
        role: 'read',
        async work(c) {
          const p = vfs(path).slice('vfs://'.length)
          const bytes = await c.fs.readFileBuffer(p)
          process.stdout.write(
            c.json
              ? `${JSON.stringify({ path: vfs(path), content: Buffer.from(bytes).toString('utf8') })}\n`
              : bytes,
          )
          return 0
        },
      })),
    )
  const history = command('history', "list a file's versions (id, time, author, reason, size)", [
    `yfs history /plan.md ${AT}`,
  ])
    .argument('<path>', 'file')
    .action(
      act('history', (path: string) => ({
        role: 'read',
        work: (c) => tool(c.tools, c.json, 'history', { path: vfs(path) }),
      })),
    )
  const diff = command('diff', 'diff two versions of a file, or a version against now', [
    `yfs diff /plan.md V1StGXR8_Z ${AT}`,
  ])
    .argument('<path>', 'file')
    .argument('<from>', 'version id (yfs history)')
    .argument('[to]', 'version id (default: the current content)')
    .action(
      act('diff', (path: string, from: string, to: string | undefined) => ({
        role: 'read',
        work: (c) =>
          tool(
            c.tools,
            c.json,
            'diff',
            { path: vfs(path), from_version: from, ...(to ? { to_version: to } : {}) },
            (text) => colorDiff(text, paletteFor(process.stdout)),
          ),
      })),
    )
  const restoreVersion = act('restore', (path: string, version: string) => ({
    role: 'write',
    work: (c) => tool(c.tools, c.json, 'checkout_version', { path: vfs(path), version }),
  }))
  const restore = command(
    'restore',
    'restore a version of a file (two arguments), or a whole workspace from a backup file (one: yfs backup)',
    [
      '# a version of one file (yfs history), as a new version:',
      `yfs restore /plan.md V1StGXR8_Z ${AT}`,
      ...RESTORE_BACKUP_HELP,
    ],
  )
    .argument('<path>', 'file in the workspace (with <version>), or a backup file (alone)')
    .argument('[version]', 'version id (yfs history); without it <path> is a backup file to restore')
    .action((path: string, version: string | undefined, flags, cmd) =>
      version === undefined ? restoreBackup(path, flags) : restoreVersion(path, version, flags, cmd),
    )
  const trash = command('trash', 'list the trash, or restore an entry from it', [
    `yfs trash ${AT}`,
    `yfs trash --restore 3 ${AT}`,
  ])
    .addOption(new Option('--restore <id>', 'trash id to restore (from the listing)'))
    .action(
      act('trash', (flags: { restore?: string }) => ({
        role: flags.restore ? 'write' : 'read',
        work: (c) => tool(c.tools, c.json, 'restore', flags.restore ? { trash_id: flags.restore } : {}),
      })),
    )
  const checkpoint = command(
    'checkpoint',
    'create a checkpoint of the workspace, list them, or restore one',
    [
      `yfs checkpoint "before the refactor" ${AT}`,
      `yfs checkpoint --list ${AT}`,
      `yfs checkpoint --restore <id> ${AT}`,
    ],
  )
    .argument('[label]', 'label of a new checkpoint')
    .option('--list', 'list the checkpoints')
    .addOption(new Option('--restore <id>', 'restore this checkpoint (a safety checkpoint is taken first)'))
    .action(
      act('checkpoint', (label: string | undefined, flags: { list?: boolean; restore?: string }) => ({
        role: flags.list ? 'read' : 'write',
        async work(c) {
          if (flags.restore) return tool(c.tools, c.json, 'restore_checkpoint', { id: flags.restore })
          if (label) return tool(c.tools, c.json, 'checkpoint', { label })
          const list = c.fs.checkpoints()
          process.stdout.write(
            c.json
              ? `${JSON.stringify(list)}\n`
              : list.map((k) => `${k.id}  ${new Date(k.ts).toISOString()}  ${k.label}\n`).join(''),
          )
          return 0
        },
      })),
    )
  return [ls, tree, stat, cat, history, diff, restore, trash, checkpoint]
}
