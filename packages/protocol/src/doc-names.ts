/**
 * Document names on a yfs sync server: `<workspace>` is the main doc (files
 * table), `<workspace>/<fileId>` the content doc of one file. The server
 * imports these too, so both sides agree by construction. Workspace ids
 * cannot contain `/` (see `isValidWorkspaceId`); file ids are core's ids,
 * URL-safe and short, checked here only for shape.
 */
import { isValidWorkspaceId } from './workspace-ids.js'

/** The name of a workspace's main doc. */
export function mainDocName(workspace: string): string {
  return workspace
}

/** The name of a file's content doc. */
export function contentDocName(workspace: string, fileId: string): string {
  return `${workspace}/${fileId}`
}

export type DocName =
  | { kind: 'main'; workspace: string }
  | { kind: 'content'; workspace: string; fileId: string }

const FILE_ID = /^[A-Za-z0-9_-]{1,64}$/

/** Parse a document name; `undefined` when it is not one of ours. */
export function parseDocName(name: string): DocName | undefined {
  const slash = name.indexOf('/')
  const workspace = slash === -1 ? name : name.slice(0, slash)
  if (!isValidWorkspaceId(workspace)) return undefined
  if (slash === -1) return { kind: 'main', workspace }
  const fileId = name.slice(slash + 1)
  return FILE_ID.test(fileId) ? { kind: 'content', workspace, fileId } : undefined
}
