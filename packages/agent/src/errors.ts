/**
 * Tool errors: a failure is a result `{ isError: true }` with the POSIX code,
 * the vfs path, the Node-style message and a hint for the model — never a
 * stack trace or a host path.
 */
import { isFsError } from '@yfs/core'
import { type } from 'arktype'
import type { ToolResult } from './tool.js'
import { ToolError } from './tool-error.js'
import { toVfsPath, vfsMessage } from './vfs-path.js'

export { ToolError }

const hints: Record<string, string> = {
  ENOENT: 'Check the path with list_directory or glob; paths are vfs:/// URLs.',
  EEXIST: 'Choose another name, or use write_file / overwrite: true to replace it.',
  EISDIR: 'That path is a folder: use list_directory or tree.',
  ENOTDIR: 'A parent in the path is a file, not a folder.',
  ENOTEMPTY: 'The folder has entries: pass recursive: true to delete it (it goes to the trash).',
  EINVAL: 'Fix the argument as the message says.',
  EFBIG: 'The file exceeds the workspace size limit.',
  ENOSPC: 'The workspace is full: delete files and empty the trash.',
  ELOOP: 'A symbolic link points back to itself.',
  ENOSYS: 'This operation is not supported here.',
  EACCES: 'System paths (/bin, /usr, /dev, /proc) are local to the bash tool.',
  ESTALE: 'Read the file again and redo the edit on the current content.',
  ENOMATCH: 'Read the file again; old_text must match exactly, including whitespace.',
}

/** Turn any failure into an `isError` tool result (FsError, ToolError, arktype errors, or a bug). */
export function errorResult(error: unknown): ToolResult {
  let code = 'EIO'
  let message = 'internal error'
  let path: string | undefined
  let hint: string | undefined
  if (isFsError(error)) {
    code = error.code
    message = vfsMessage(error.message)
    // Ids (versions, checkpoints) travel in the message; `path` is only ever a workspace path.
    if (error.path.startsWith('/')) path = toVfsPath(error.path)
  } else if (error instanceof ToolError) {
    code = error.code
    message = error.message
    path = error.path
    hint = error.hint
  } else if (error instanceof type.errors) {
    code = 'EINVAL'
    message = `invalid arguments: ${error.summary}`
  } else if (error instanceof Error) {
    // A bug or an unexpected failure: say what, never where in our code.
    message = error.message.split('\n')[0] ?? message
  }
  hint ??= hints[code]
  const structured = { error: { code, message, ...(path ? { path } : {}), ...(hint ? { hint } : {}) } }
  return {
    isError: true,
    content: [{ type: 'text', text: `${message}${hint ? `\nHint: ${hint}` : ''}` }],
    structuredContent: structured,
  }
}
