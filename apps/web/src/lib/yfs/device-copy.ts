/**
 * This device's copy of a workspace: the IndexedDB databases y-indexeddb keeps for its main doc and
 * for every content doc opened here (`yfs:<host>:<workspace>` and `yfs:<host>:<workspace>/<fileId>`,
 * see connection.ts). Signing out removes them, so the next person at this browser finds nothing of
 * the workspace — unless some of them hold changes the server has not acknowledged: deleting those
 * would lose edits, so the caller keeps the copy then and says so.
 */

/** Database-name prefix of `workspace`'s documents on this server. */
function prefixOf(workspace: string, host: string): string {
  return `yfs:${host}:${workspace}`
}

/** Names of this device's databases for `workspace` (main doc and content docs). */
export async function deviceCopyNames(workspace: string, host = window.location.host): Promise<string[]> {
  const prefix = prefixOf(workspace, host)
  const all = await indexedDB.databases()
  return all
    .map((info) => info.name)
    .filter(
      (name): name is string => name !== undefined && (name === prefix || name.startsWith(`${prefix}/`)),
    )
}

/** Delete one database; `false` when another tab still holds it open (the browser then deletes it later). */
function deleteDatabase(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(name)
    request.onsuccess = () => resolve(true)
    request.onerror = () => resolve(false)
    // Blocked: the deletion stays queued until the other connections close; don't wait for them.
    request.onblocked = () => resolve(false)
  })
}

/**
 * Remove this device's copy of `workspace` (call after the connection is closed). Returns how many
 * databases were deleted at once; ones another tab holds open are deleted when it closes them.
 */
export async function forgetDeviceCopy(workspace: string, host = window.location.host): Promise<number> {
  const names = await deviceCopyNames(workspace, host)
  const done = await Promise.all(names.map(deleteDatabase))
  return done.filter(Boolean).length
}
