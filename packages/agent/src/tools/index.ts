/** Every built-in tool, one folder each (`tools/<name>/<name>.ts`, tests beside). */
import type { Tool } from '../tool.js'
import { activityTool } from './activity/activity.js'
import { appendFileTool } from './append-file/append-file.js'
import { applyPatchTool } from './apply-patch/apply-patch.js'
import { bashTool } from './bash/bash.js'
import { checkoutVersionTool } from './checkout-version/checkout-version.js'
import { checkpointTool } from './checkpoint/checkpoint.js'
import { copyTool } from './copy/copy.js'
import { createFileTool } from './create-file/create-file.js'
import { deleteTool } from './delete/delete.js'
import { diffTool } from './diff/diff.js'
import { editFileTool } from './edit-file/edit-file.js'
import { globTool } from './glob/glob.js'
import { grepTool } from './grep/grep.js'
import { historyTool } from './history/history.js'
import { listDirectoryTool } from './list-directory/list-directory.js'
import { mkdirTool } from './mkdir/mkdir.js'
import { moveTool } from './move/move.js'
import { readFileTool } from './read-file/read-file.js'
import { restoreTool } from './restore/restore.js'
import { restoreCheckpointTool } from './restore-checkpoint/restore-checkpoint.js'
import { searchTool } from './search/search.js'
import { statTool } from './stat/stat.js'
import { treeTool } from './tree/tree.js'
import { undoTool } from './undo/undo.js'
import { writeFileTool } from './write-file/write-file.js'

/** Every built-in tool, in the order clients list them. */
export const allTools: Tool[] = [
  bashTool,
  readFileTool,
  writeFileTool,
  createFileTool,
  appendFileTool,
  editFileTool,
  applyPatchTool,
  deleteTool,
  restoreTool,
  mkdirTool,
  moveTool,
  copyTool,
  statTool,
  listDirectoryTool,
  treeTool,
  globTool,
  grepTool,
  searchTool,
  historyTool,
  diffTool,
  checkoutVersionTool,
  checkpointTool,
  restoreCheckpointTool,
  activityTool,
  undoTool,
]
