/**
 * Reading whole files (`readFile`, `readFileBuffer`, `readFileBytes`):
 * resolve the path (symlinks followed), send system paths to the local
 * layer, read the content (read-content.ts) and encode it as asked.
 *
 * A read is a whole-file read by the caller: it becomes the base of this
 * instance's next write of the file (stale writes merge against it).
 */
import type { IFileSystem } from 'just-bash'
import { encodeUtf8, fromBytes, getEncoding, latin1FromBytes } from '../encoding.js'
import { eisdir } from '../errors.js'
import type { FsContext } from './fs-context.js'
import { locate, normalizePath, rowOf } from './locate.js'
import { readContent } from './read-content.js'

type ReadFileOptions = Parameters<IFileSystem['readFile']>[1]

/** `fs.readFile`: the file's text in `options`' encoding. ENOENT, ENOTDIR, ELOOP, EISDIR; ENOSYS when its codec is missing. */
export async function readFile(ctx: FsContext, path: string, options?: ReadFileOptions): Promise<string> {
  const encoding = getEncoding(options)
  const normalized = normalizePath(path, 'open')
  const loc = locate(ctx, normalized, true, 'open', path)
  if (loc.kind === 'system') return ctx.local.readFile(loc.path, options)
  const row = rowOf(ctx, loc.id)
  if (!row || row.type === 'folder') throw eisdir('read', path)
  const content = await readContent(ctx, loc.id, row, true)
  if (content.text !== undefined) {
    if (encoding === 'utf8' || encoding === 'utf-8') return content.text
    return fromBytes(encodeUtf8(content.text), encoding)
  }
  return fromBytes(content.bytes!, encoding)
}

/** `fs.readFileBuffer`: the file's bytes (text as UTF-8). Throws like `readFile`. */
export async function readFileBuffer(ctx: FsContext, path: string): Promise<Uint8Array> {
  const normalized = normalizePath(path, 'open')
  const loc = locate(ctx, normalized, true, 'open', path)
  if (loc.kind === 'system') return ctx.local.readFileBuffer(loc.path)
  const row = rowOf(ctx, loc.id)
  if (!row || row.type === 'folder') throw eisdir('read', path)
  const content = await readContent(ctx, loc.id, row, true)
  return content.bytes ?? encodeUtf8(content.text ?? '')
}

/** `fs.readFileBytes`: the bytes as a latin1 byte string (just-bash's `ByteString`). Throws like `readFile`. */
export async function readFileBytes(ctx: FsContext, path: string): Promise<never> {
  const normalized = normalizePath(path, 'open')
  const loc = locate(ctx, normalized, true, 'open', path)
  if (loc.kind === 'system') return (await ctx.local.readFileBytes(loc.path)) as never
  const row = rowOf(ctx, loc.id)
  if (!row || row.type === 'folder') throw eisdir('read', path)
  const content = await readContent(ctx, loc.id, row, true)
  let latin1: string
  if (content.bytes) latin1 = latin1FromBytes(content.bytes)
  // ASCII text is its own byte string; only non-ASCII needs encoding.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range check
  else if (/^[\x00-\x7f]*$/.test(content.text ?? '')) latin1 = content.text ?? ''
  else latin1 = latin1FromBytes(encodeUtf8(content.text ?? ''))
  // ByteString is an opaque brand over a latin1 string (just-bash encoding.ts).
  return latin1 as never
}
