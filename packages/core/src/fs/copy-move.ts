/**
 * `cp` and `mv`.
 *
 * A move in the workspace changes one row (name, parent, mtime): the file
 * keeps its id, content and history. A destination that exists (a file, or
 * an empty folder) goes to the trash instead of being destroyed. Renaming
 * a file to a name of another codec (`.txt` → `.md`) converts its content
 * first (convert-on-switch).
 *
 * Between `/tmp` (the local layer) and the workspace, a move is a copy then
 * a removal, as between two filesystems; other system paths are EACCES.
 * A copy reads and writes through whichever side holds each path; a folder
 * copied to a new place in the workspace goes as one bulk load (copy-tree.ts).
 */
import type { CpOptions } from 'just-bash'
import { readBinary } from '../content/binary.js'
import { contentVersionOf } from '../content/content-versions.js'
import { einval, enoent, FsError, isFsError } from '../errors.js'
import type { FileRow } from '../files-table.js'
import { ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import { codecFor, contentSize, readText, recordFileVersion } from './content-codecs.js'
import { copyTreeInBulk } from './copy-tree.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { checkName } from './limit-checks.js'
import { isTmpPath, TMP_PATH } from './local-layer.js'
import { isSystemPath, locate, normalizePath, parentFolder, rowOf } from './locate.js'
import { mkdirSync } from './mkdir.js'
import { readContent } from './read-content.js'
import { readdir } from './readdir.js'
import { remove } from './remove.js'
import { lstat } from './stat.js'
import { createSymlink } from './symlinks.js'
import { toContentValue } from './write-content.js'
import { writeAt } from './write-file.js'

/** `fs.cp`: files, symlinks and (with `recursive`) folders. ENOENT, EISDIR without `recursive`, EINVAL into itself, EACCES. */
export async function cp(ctx: FsContext, src: string, dest: string, options?: CpOptions): Promise<void> {
  const srcNorm = normalizePath(src, 'cp')
  const destNorm = normalizePath(dest, 'cp')
  if (!isSystemPath(destNorm)) assertWritable(ctx, 'cp', dest)
  return exclusive(ctx, () => copy(ctx, srcNorm, destNorm, src, dest, options))
}

async function copy(
  ctx: FsContext,
  srcNorm: string,
  destNorm: string,
  src: string,
  dest: string,
  options?: CpOptions,
): Promise<void> {
  const loc = locate(ctx, srcNorm, false, 'cp', src)
  // Either side may be in the local layer (/tmp): read and write through whichever holds it.
  let kind: FileRow['type']
  let row: FileRow | undefined
  if (loc.kind === 'system') {
    const st = await ctx.local.lstat(loc.path)
    kind = st.isDirectory ? 'folder' : st.isSymbolicLink ? 'symlink' : 'file'
  } else {
    row = rowOf(ctx, loc.id)
    kind = row?.type ?? 'folder'
  }
  const toLocal = isSystemPath(destNorm)
  if (kind === 'folder') {
    if (!options?.recursive) throw new FsError('EISDIR', 'cp', src, undefined, 'is a directory')
    // On the paths as written and as resolved: through a symlink, '/link/x' may be inside the folder.
    if (
      paths.isSameOrDescendant(srcNorm, destNorm) ||
      paths.isSameOrDescendant(loc.path, resolvedDestination(ctx, destNorm))
    )
      throw new FsError('EINVAL', 'cp', src, undefined, `cannot copy '${src}' into itself, '${dest}'`)
    // Workspace to a new workspace folder: one bulk load (content in batches, rows in one transaction).
    if (!toLocal && loc.kind !== 'system' && (await copyTreeInBulk(ctx, loc.id, destNorm))) return
    if (toLocal) await ctx.local.mkdir(destNorm, { recursive: true })
    else mkdirSync(ctx, destNorm, { recursive: true })
    const names =
      loc.kind === 'system' ? await ctx.local.readdir(loc.path) : [...ctx.index.childNames(loc.id)]
    for (const name of names) {
      await copy(
        ctx,
        paths.join(srcNorm, name),
        paths.join(destNorm, name),
        paths.join(srcNorm, name),
        paths.join(destNorm, name),
        options,
      )
    }
    return
  }
  if (kind === 'symlink') {
    const target = loc.kind === 'system' ? await ctx.local.readlink(loc.path) : (row!.target ?? '')
    if (toLocal) await ctx.local.symlink(target, destNorm)
    else await createSymlink(ctx, target, destNorm, dest)
    return
  }
  const content =
    loc.kind === 'system'
      ? toContentValue(await ctx.local.readFileBuffer(loc.path), 'utf8')
      : await readContent(ctx, loc.id, row!)
  if (toLocal) await ctx.local.writeFile(destNorm, content.bytes ?? content.text ?? '')
  else await writeAt(ctx, destNorm, dest, content, 'cp')
}

/** `path` with its parent folder's symlinks followed (the path itself need not exist); as given where that parent does not resolve. */
function resolvedDestination(ctx: FsContext, path: string): string {
  if (isSystemPath(path)) return path
  try {
    return paths.join(parentFolder(ctx, path, 'cp', path).parentPath, paths.basename(path))
  } catch (error) {
    if (error instanceof FsError) return path
    throw error
  }
}

/** `fs.mv`. ENOENT, ENOTDIR, EISDIR, ENOTEMPTY, EINVAL (into itself), EBUSY (`/`, `/tmp`), EACCES. */
export async function mv(ctx: FsContext, src: string, dest: string): Promise<void> {
  const srcNorm = normalizePath(src, 'mv')
  const destNorm = normalizePath(dest, 'mv')
  if (srcNorm === destNorm) {
    // rename(2) onto itself changes nothing, but only for a path that exists.
    await lstat(ctx, srcNorm).catch((error: unknown) => {
      throw isFsError(error, 'ENOENT') ? enoent('rename', src, dest) : error
    })
    return
  }
  const [srcLocal, destLocal] = [isSystemPath(srcNorm), isSystemPath(destNorm)]
  if (srcLocal && destLocal) return ctx.local.mv(srcNorm, destNorm)
  if (srcLocal || destLocal) {
    // Between /tmp and the workspace: copy, then remove, as between two filesystems.
    const local = srcLocal ? srcNorm : destNorm
    if (local === TMP_PATH) throw new FsError('EBUSY', 'rename', src, dest)
    if (!isTmpPath(local)) throw new FsError('EACCES', 'rename', src, dest)
    assertWritable(ctx, 'rename', srcLocal ? dest : src)
    return exclusive(ctx, () => moveAcross(ctx, srcNorm, destNorm, src, dest))
  }
  assertWritable(ctx, 'rename', src)
  return exclusive(ctx, () => move(ctx, srcNorm, destNorm, src, dest))
}

/** A move between the local layer and the workspace; the replaced destination goes to the trash (or away, in /tmp). */
async function moveAcross(
  ctx: FsContext,
  srcNorm: string,
  destNorm: string,
  src: string,
  dest: string,
): Promise<void> {
  const from = await lstat(ctx, srcNorm).catch((error: unknown) => {
    throw isFsError(error, 'ENOENT') ? enoent('rename', src, dest) : error
  })
  const to = await lstat(ctx, destNorm).catch((error: unknown) => {
    // A missing destination is the usual case; ENOTDIR and the rest surface when writing.
    if (isFsError(error, 'ENOENT')) return undefined
    throw error
  })
  if (to) {
    if (from.isDirectory && !to.isDirectory) throw new FsError('ENOTDIR', 'rename', src, dest)
    if (!from.isDirectory && to.isDirectory) throw new FsError('EISDIR', 'rename', src, dest)
    if (to.isDirectory && (await readdir(ctx, destNorm)).length > 0)
      throw new FsError('ENOTEMPTY', 'rename', src, dest)
    await remove(ctx, destNorm, dest, { recursive: true })
  }
  await copy(ctx, srcNorm, destNorm, src, dest, { recursive: true })
  await remove(ctx, srcNorm, src, { recursive: true })
}

async function move(
  ctx: FsContext,
  srcNorm: string,
  destNorm: string,
  src: string,
  dest: string,
): Promise<void> {
  const loc = locate(ctx, srcNorm, false, 'mv', src)
  if (loc.kind === 'system' || loc.id === ROOT_ID) throw new FsError('EBUSY', 'rename', src, dest)
  const row = ctx.table.get(loc.id)!
  if (row.type === 'folder' && paths.isSameOrDescendant(srcNorm, destNorm))
    throw new FsError('EINVAL', 'mv', src, undefined, `cannot move '${src}' into itself, '${dest}'`)
  const { parentId, parentPath } = parentFolder(ctx, destNorm, 'rename', dest)
  const name = paths.basename(destNorm)
  // The same check on the paths as resolved: through a symlink, '/link/x' may be inside the folder.
  if (row.type === 'folder' && paths.isSameOrDescendant(loc.path, parentPath))
    throw new FsError('EINVAL', 'mv', src, undefined, `cannot move '${src}' into itself, '${dest}'`)
  const existing = ctx.index.child(parentId, name)
  if (existing === loc.id) {
    if (row.name === name) return
  } else if (existing !== undefined) {
    const other = ctx.table.get(existing)!
    if (row.type === 'folder' && other.type !== 'folder') throw new FsError('ENOTDIR', 'rename', src, dest)
    if (row.type !== 'folder' && other.type === 'folder') throw new FsError('EISDIR', 'rename', src, dest)
    if (other.type === 'folder' && ctx.index.childNames(existing).length > 0)
      throw new FsError('ENOTEMPTY', 'rename', src, dest)
  }
  checkName(ctx, name, 'rename', dest)
  const destPath = paths.join(parentPath, name)
  if (paths.split(destPath).length > ctx.limits.maxPathDepth)
    throw einval('rename', dest, `path deeper than ${ctx.limits.maxPathDepth} levels`)
  const fromCodec = codecFor(ctx, row.name)
  const toCodec = codecFor(ctx, name)
  if (row.type === 'file' && fromCodec !== toCodec) {
    // Convert-on-switch: move the content to the new codec's keys before the rename lands.
    const handle = await ctx.pool.acquire(loc.id)
    try {
      if (!readBinary(handle.doc)) {
        const text = readText(ctx, handle.doc, row.name)
        // The converted content and its version in one transaction: one update for peers.
        // A move, not a copy: the other kinds' keys are emptied, or a reader would later take
        // them for the file's content once it is emptied (heal-source.ts).
        handle.doc.transact(() => {
          toCodec.write(handle.doc, text, FS_ORIGIN)
          for (const other of ctx.codecs)
            if (other !== toCodec && other.hasContent(handle.doc)) other.write(handle.doc, '', FS_ORIGIN)
          recordFileVersion(ctx, handle.doc, name, contentSize(ctx, handle.doc, name), 'write')
        }, FS_ORIGIN)
        ctx.index.plaintext.delete(loc.id)
      }
    } finally {
      handle.release()
    }
  }
  const now = ctx.clock()
  ctx.table.batch(() => {
    if (existing !== undefined && existing !== loc.id)
      ctx.table.update(existing, { trashedAt: now }, FS_ORIGIN)
    // Placement only (POSIX: a rename leaves mtime alone): a concurrent content edit elsewhere
    // writes the content group and both survive (files-table.ts).
    const patch: Partial<FileRow> = {
      name,
      parentId: parentId === ROOT_ID ? null : parentId,
    }
    if (row.type === 'file' && fromCodec !== toCodec) {
      const doc = ctx.pool.peek(loc.id)
      if (doc) patch.size = contentSize(ctx, doc, name)
      if (doc && !ctx.lazyContent) patch.sv = contentVersionOf(doc)
    }
    ctx.table.update(loc.id, patch, FS_ORIGIN)
  }, FS_ORIGIN)
}
