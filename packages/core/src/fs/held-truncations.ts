/**
 * Held truncations: `writeFile(f, '')` of a non-empty file followed by a
 * write of f is one write, against what this instance last read.
 *
 * A shell opens `cmd > f` by truncating f before the command runs and writes
 * the output when it ends (just-bash does exactly that, whoever calls it:
 * `new Bash({ fs })`, Vercel's `createBashTool`, our `bash` tool). Applied as
 * two writes, the truncation would erase f for everyone and the output would
 * land as "empty, then new text": an agent that read f, and rewrote it with a
 * heredoc while a person typed in it, would lose what the person typed. So
 * the filesystem holds such a truncation back; the next write of f replaces
 * it, as one write merged with what changed since this instance last read f
 * (see `write`), and an append becomes that write (truncate, then append).
 *
 * To everyone else a held truncation looks like a slow network: nothing is
 * sent and no event fires until it is applied. Locally it is never seen: any
 * read or stat of f (anything that shows its content or size: `exists`,
 * `realpath` and `readlink` only resolve the path) applies it first, any other change
 * applies every held truncation first (changes keep their order), and it is
 * applied after `holdTruncationsMs` when no write follows (`: > f`, a long
 * command). So POSIX results hold: `: > f` empties f, `cat f > f` reads it
 * empty and writes nothing, `echo x > f` writes x.
 *
 * What it does not do: hold truncations of empty files (nothing to lose),
 * of `/tmp` and the other local paths (never shared), or with a read-only
 * workspace (the truncation fails with EACCES at once, as every write does).
 */
import { isFsError } from '../errors.js'
import { hostClearTimeout, hostSetTimeout } from '../host-timers.js'
import type { FileId } from '../ids.js'
import type { FsContext } from './fs-context.js'
import { isSystemPath, locate, normalizePath } from './locate.js'
import { writeFile } from './write-file.js'

/** True for the content of a truncation. */
export const isEmptyContent = (content: unknown): boolean =>
  content === '' || (content instanceof Uint8Array && content.byteLength === 0)

/** The shared file `path` names (following symlinks), when it is one; `undefined` otherwise. */
function fileAt(ctx: FsContext, path: string): FileId | undefined {
  try {
    const norm = normalizePath(path, 'open')
    if (isSystemPath(norm)) return undefined
    // Without symlinks, one lookup (and no error built for a new file's path).
    if (ctx.index.symlinkCount === 0) return ctx.index.lookup(norm)
    const at = locate(ctx, norm, true, 'open', path)
    return at.kind === 'shared' ? at.id : undefined
  } catch (error) {
    // A path that does not resolve names no held file.
    if (isFsError(error)) return undefined
    throw error
  }
}

/** Hold back the truncation of `path` when it is a non-empty shared file; true when held. */
export function holdTruncation(ctx: FsContext, path: string): boolean {
  if (ctx.readOnly || ctx.holdTruncationsMs <= 0) return false
  const id = fileAt(ctx, path)
  if (id === undefined) return false
  const row = ctx.table.get(id)
  if (row?.type !== 'file' || row.size === 0) return false
  if (!ctx.held.has(id))
    ctx.held.set(
      id,
      hostSetTimeout(() => {
        void applyTruncation(ctx, id).catch(() => undefined)
      }, ctx.holdTruncationsMs),
    )
  return true
}

/** The held truncation of the file `path` names, if any; it is no longer held (the caller writes f now). */
export function takeTruncation(ctx: FsContext, path: unknown): FileId | undefined {
  if (ctx.held.size === 0 || typeof path !== 'string') return undefined
  const id = fileAt(ctx, path)
  if (id === undefined || !ctx.held.has(id)) return undefined
  hostClearTimeout(ctx.held.get(id))
  ctx.held.delete(id)
  return id
}

/** True when the truncation of the file `path` names is held. */
export function isHeld(ctx: FsContext, path: unknown): boolean {
  if (ctx.held.size === 0 || typeof path !== 'string') return false
  const id = fileAt(ctx, path)
  return id !== undefined && ctx.held.has(id)
}

// Truncations being applied, per filesystem: a look at the same file meanwhile waits for it (a
// shell stats a folder's entries at once: `ls -l` with a symlink to a file just truncated).
const applying = new WeakMap<FsContext, Map<FileId, Promise<void>>>()

/** Apply the held truncation of `id` now (the file is emptied for everyone); or wait for it, being applied. */
async function applyTruncation(ctx: FsContext, id: FileId): Promise<void> {
  const timer = ctx.held.get(id)
  if (timer === undefined) return applying.get(ctx)?.get(id)
  hostClearTimeout(timer)
  ctx.held.delete(id)
  const path = ctx.index.pathOf(id)
  // Gone meanwhile (a peer trashed or deleted it): nothing left to truncate.
  if (path === undefined) return
  let inFlight = applying.get(ctx)
  if (!inFlight) {
    inFlight = new Map()
    applying.set(ctx, inFlight)
  }
  const running = inFlight
  const run = writeFile(ctx, path, '').finally(() => {
    if (running.get(id) === run) running.delete(id)
  })
  running.set(id, run)
  await run
}

/** True when a truncation is held or being applied: a look must go through `beforeLook`. */
export function hasTruncations(ctx: FsContext): boolean {
  return ctx.held.size > 0 || (applying.get(ctx)?.size ?? 0) > 0
}

/** Before a call that looks at `path`: apply its held truncation, if any (or wait for it, being applied). */
export async function beforeLook(ctx: FsContext, path: unknown): Promise<void> {
  if (typeof path !== 'string' || !hasTruncations(ctx)) return
  const id = fileAt(ctx, path)
  if (id !== undefined) await applyTruncation(ctx, id)
}

/** Before any other change: apply every held truncation, in the order they were held. */
export async function applyHeldTruncations(ctx: FsContext): Promise<void> {
  for (const id of [...ctx.held.keys()]) await applyTruncation(ctx, id)
}

/** Drop held truncations without applying them (the filesystem is destroyed). */
export function dropHeldTruncations(ctx: FsContext): void {
  for (const timer of ctx.held.values()) hostClearTimeout(timer)
  ctx.held.clear()
}
