/**
 * Command scope: a view of a filesystem for one shell command (one just-bash
 * `exec`), in which `>` truncate-then-write counts as one write.
 *
 * just-bash opens `cmd > f` by truncating f (`writeFile(f, '')`) before the
 * command runs and writes the output when it ends. Applied as two writes,
 * the truncation would erase f for everyone and the output would land as
 * "empty, then new text": a stale instance would lose what others typed,
 * and peers would see the file flash empty. In a scope, truncating an
 * existing non-empty file is held back; the next write to that file (or an
 * append, then the whole content) replaces it as one write, merged against
 * what this instance last saw (see `YjsFileSystem.write`).
 *
 * A held truncation is applied for real before anything could observe the
 * file (a read, stat or other call naming it), before any other change (so
 * changes keep their order), and when the scope closes (`: > f` alone).
 * Reads and stats of other paths and the local paths (`/dev/null`, `/tmp`)
 * pass straight through. Everything else is forwarded unchanged.
 *
 * @example
 * const scope = openCommandScope(fs)
 * try { await new Bash({ fs: scope.fs }).exec(script) } finally { await scope.close() }
 */
import { isFsError } from '../errors.js'
import { isLocalPath } from './local-layer.js'
import type { YjsFileSystem } from './yjs-file-system.js'

export interface CommandScope {
  /** The view to hand to the shell. */
  readonly fs: YjsFileSystem
  /** Apply held truncations; call once the command has ended. */
  close(): Promise<void>
}

// Calls that only look at the path they name: pass through unless it is held.
const LOOKS = new Set([
  'readFile',
  'readFileBuffer',
  'readFileBytes',
  'stat',
  'lstat',
  'exists',
  'realpath',
  'readlink',
])
// Calls that neither look at file contents nor change anything.
const NEUTRAL = new Set([
  'resolvePath',
  'readdir',
  'readdirWithFileTypes',
  'getAllPaths',
  'watch',
  'on',
  'codecFor',
])

const isEmpty = (content: unknown) =>
  content === '' || (content instanceof Uint8Array && content.byteLength === 0)

// Local paths (/dev/null, /tmp scratch) never sync: nothing to hold back there.
const isSystem = isLocalPath

/** Open a scope for one command on `fs`; `close()` it when the command has ended. */
export function openCommandScope(fs: YjsFileSystem): CommandScope {
  // Held truncations by real path.
  const held = new Set<string>()
  const real = async (path: string): Promise<string | undefined> => {
    try {
      return await fs.realpath(path)
    } catch (error) {
      // A missing path has nothing held.
      if (isFsError(error)) return undefined
      throw error
    }
  }
  const flush = async (only?: string) => {
    for (const path of [...held]) {
      if (only !== undefined && path !== only) continue
      held.delete(path)
      await fs.writeFile(path, '')
    }
  }
  const heldFor = async (path: unknown): Promise<string | undefined> => {
    if (held.size === 0 || typeof path !== 'string' || isSystem(path)) return undefined
    const r = await real(path)
    return r !== undefined && held.has(r) ? r : undefined
  }

  const view = new Proxy(fs, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target)
      if (typeof value !== 'function') return value
      const fn = value as (...args: unknown[]) => unknown
      if (typeof prop !== 'string' || NEUTRAL.has(prop) || prop.endsWith('Sync')) return fn.bind(target)
      if (LOOKS.has(prop))
        return async (...args: unknown[]) => {
          const h = await heldFor(args[0])
          if (h !== undefined) await flush(h)
          return fn.apply(target, args)
        }
      if (prop === 'writeFile' || prop === 'appendFile')
        return async (...args: unknown[]) => {
          const [path, content] = args
          if (typeof path !== 'string' || isSystem(path)) return fn.apply(target, args)
          const h = await heldFor(path)
          if (h !== undefined) {
            // `>>` first appends nothing; the truncation stays held.
            if (prop === 'appendFile' && isEmpty(content)) return
            held.delete(h)
            return target.writeFile(path, content as string, args[2] as never)
          }
          if (prop === 'writeFile' && isEmpty(content)) {
            const r = await real(path)
            const st = r === undefined ? undefined : await target.stat(r)
            if (r !== undefined && st?.isFile && st.size > 0) {
              await flush()
              held.add(r)
              return
            }
          }
          await flush()
          return fn.apply(target, args)
        }
      return async (...args: unknown[]) => {
        await flush()
        return fn.apply(target, args)
      }
    },
  })
  return { fs: view, close: () => flush() }
}
