/**
 * Document names on the wire: `<workspace>` is the workspace's main doc,
 * `<workspace>/<fileId>` the content doc of one file. Workspace ids cannot
 * contain `/` (see `isValidWorkspaceId`); file ids are core's ids, which are
 * URL-safe and short, checked here only for shape.
 */
import { contentDocName, mainDocName } from '@yfs/client'
import { isValidWorkspaceId } from './persistence/document-store.js'

export { contentDocName, mainDocName }

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
