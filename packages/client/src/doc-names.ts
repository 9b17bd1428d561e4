/**
 * Document names on a yfs sync server: `<workspace>` is the main doc (files
 * table), `<workspace>/<fileId>` the content doc of one file. The server
 * imports these too, so both sides agree by construction.
 */

/** The name of a workspace's main doc. */
export function mainDocName(workspace: string): string {
  return workspace
}

/** The name of a file's content doc. */
export function contentDocName(workspace: string, fileId: string): string {
  return `${workspace}/${fileId}`
}
