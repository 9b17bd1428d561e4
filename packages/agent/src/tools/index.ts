import type { Tool } from '../tool.js'
import { bashTool } from './bash.js'
import { appendFile, applyPatchTool, createFile, editFile, readFile, writeFile } from './files.js'
import { checkoutVersion, checkpointTool, diffTool, historyTool, restoreCheckpoint } from './history.js'
import { globTool, grepTool } from './search.js'
import {
  copyTool,
  deleteTool,
  listDirectory,
  mkdirTool,
  moveTool,
  restoreTool,
  statTool,
  treeTool,
} from './tree.js'

/** Every built-in tool, in the order clients list them. */
export const allTools: Tool[] = [
  bashTool,
  readFile,
  writeFile,
  createFile,
  appendFile,
  editFile,
  applyPatchTool,
  deleteTool,
  restoreTool,
  mkdirTool,
  moveTool,
  copyTool,
  statTool,
  listDirectory,
  treeTool,
  globTool,
  grepTool,
  historyTool,
  diffTool,
  checkoutVersion,
  checkpointTool,
  restoreCheckpoint,
]
