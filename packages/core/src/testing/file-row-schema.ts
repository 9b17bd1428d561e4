/**
 * The files-table row rules as an arktype schema: the reference that the hand-written
 * checks of files-table.ts (`isValidRow`, `rowProblems`) are tested against. Not used at
 * run time (building it costs ~100 ms at import in a browser).
 */
import { type } from 'arktype'

export const FileRowSchema = type({
  id: 'string > 0',
  name: 'string > 0',
  parentId: 'string | null',
  type: "'file' | 'folder' | 'symlink'",
  size: 'number.integer >= 0',
  createdAt: 'number',
  updatedAt: 'number',
  trashedAt: 'number | null',
  'mode?': 'number.integer >= 0',
  'target?': 'string',
  'sv?': 'string',
})
