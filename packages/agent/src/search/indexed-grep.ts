/**
 * `grep -r` through the search index: a just-bash custom `grep` that, for
 * command lines whose requirement it can tell (grep-requirement.ts), runs
 * just-bash's own grep (`origCommand`) while the shell's filesystem view
 * answers the read of every file the index proves cannot match with `''`.
 *
 * Why the output is byte-identical to a full scan: grep still walks the same
 * folders in the same order (the view changes no listing, no stat), reads
 * every file it would read, and a file with no matching line prints exactly
 * what an empty file prints (nothing; `name:0` for `-c`; its name for `-L`).
 * A file is answered `''` only when the index holds its current text (row
 * unchanged since it was read) and that text lacks the command's required
 * literals; everything else (`/tmp`, system paths, symlinks, binary files,
 * files changed since indexed) is read for real. The narrowing holds only
 * inside that grep's own async context (AsyncLocalStorage), so a command
 * running beside it in a pipeline reads everything. Differential tests
 * (indexed-grep.test.ts) compare with the builtin over random corpora.
 *
 * Not here: which command lines qualify (grep-requirement.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { type FileId, paths, type SearchIndex, searchIndexOf, type YjsFileSystem } from '@yfs/core'
import { type Command, defineCommand } from 'just-bash'
import { grepRequirement } from './grep-requirement.js'

/** What the running grep may skip: true for a path whose file the index proves has no match. */
type Skip = (path: string) => boolean

export interface IndexedGrep {
  /** The custom `grep` to give the shell (`customCommands`). */
  command: Command
  /** Wrap the filesystem the shell gets, so the reads the index rules out are not made. */
  view<T extends YjsFileSystem>(fs: T): T
  /** Greps that ran through the index, and file reads they skipped. */
  readonly stats: { indexed: number; skipped: number }
}

/**
 * `grep -r` on `fs` through its search index (`searchIndexOf(fs)` unless `index` is given,
 * built on the first indexed grep).
 * @example
 * const grep = createIndexedGrep(fs)
 * const bash = new Bash({ fs: grep.view(fs), customCommands: [grep.command] })
 * await bash.exec('grep -rn TODO /src')
 */
export function createIndexedGrep(fs: YjsFileSystem, index?: SearchIndex): IndexedGrep {
  const narrowing = new AsyncLocalStorage<Skip>()
  const stats = { indexed: 0, skipped: 0 }
  const command = defineCommand('grep', async (args, ctx) => {
    const original = ctx.origCommand
    if (!original) throw new Error('indexed grep: no builtin grep to run')
    const required = grepRequirement(args)
    if (required === undefined) return original(args)
    const search = index ?? searchIndexOf(fs)
    await search.refresh()
    const candidates = search.candidates(required)
    if (candidates === undefined) return original(args)
    const maybe = new Set<FileId>(candidates)
    const skip: Skip = (path) => {
      const id = fs.index.lookup(paths.normalize(path))
      const skipped = id !== undefined && !maybe.has(id) && search.currentText(id) !== undefined
      if (skipped) stats.skipped++
      return skipped
    }
    stats.indexed++
    return narrowing.run(skip, () => original(args))
  })
  return {
    command,
    stats,
    view<T extends YjsFileSystem>(target: T): T {
      return new Proxy(target, {
        get(obj, prop) {
          const value: unknown = Reflect.get(obj, prop, obj)
          if (typeof value !== 'function') return value
          if (prop !== 'readFile') return value.bind(obj)
          return (path: string, options?: unknown) => {
            const skip = narrowing.getStore()
            if (skip !== undefined && typeof path === 'string' && skip(path)) return Promise.resolve('')
            return (value as (p: string, o?: unknown) => Promise<string>).call(obj, path, options)
          }
        },
      })
    },
  }
}
