/**
 * Command scope: a filesystem for one shell command (one just-bash `exec`),
 * which is one write batch, and in which `>` truncate-then-write counts as
 * one write.
 *
 * - The batch: the rows the command writes reach the main doc (and peers)
 *   together when it ends (`fs.batch`, lww-map.ts "Held writes"); a command
 *   running longer than 100 ms is stored in steps.
 * - Truncations: the filesystem itself holds them back (held-truncations.ts),
 *   for every caller, with or without a scope; a scope only adds the end of the
 *   command: `close()` applies the truncations still held (`: > f` alone), so
 *   peers see the emptied file when the command ends rather than when the hold
 *   times out.
 *
 * @example
 * const scope = openCommandScope(fs)
 * try { await new Bash({ fs: scope.fs }).exec(script) } finally { await scope.close() }
 */
import type { YjsFileSystem } from './yjs-file-system.js'

export interface CommandScope {
  /** The filesystem to hand to the shell. */
  readonly fs: YjsFileSystem
  /** Apply held truncations and end the batch; call once the command has ended (again: no-op for the batch). */
  close(): Promise<void>
}

/** Open a scope for one command on `fs`; `close()` it when the command has ended. */
export function openCommandScope(fs: YjsFileSystem): CommandScope {
  const end = fs.openBatch()
  return {
    fs,
    async close() {
      try {
        await fs.flushTruncations()
      } finally {
        await end()
      }
    },
  }
}
