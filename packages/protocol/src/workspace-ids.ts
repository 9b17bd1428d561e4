/**
 * Workspace ids: a main doc's name on the wire is its workspace id, so their
 * shape is part of the protocol (the server refuses any other name, stores
 * key workspaces by it).
 */

const WORKSPACE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

// Hocuspocus keeps each socket's documents in plain objects keyed by document name, and a main
// doc's name is its workspace id: `constructor`, `toString`, … would find Object.prototype's
// member there, and the workspace could never be opened. (Ids starting with `_` are refused anyway.)
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype))

/**
 * Why `id` cannot be a workspace id, or `undefined` when it can: 1–128 of `[A-Za-z0-9._-]`, not
 * starting with a dot or dash (no `/`: it separates doc names), and not a name of
 * `Object.prototype` (`constructor`, `toString`, `hasOwnProperty`, …). Quotes the id only when
 * it is a valid pattern (short).
 */
export function workspaceIdProblem(id: string): string | undefined {
  if (!WORKSPACE_ID.test(id))
    return 'id must be 1-128 characters of [A-Za-z0-9._-], starting with a letter or digit'
  if (PROTOTYPE_NAMES.has(id))
    return `id '${id}' is reserved (a member name of JavaScript's Object.prototype)`
  return undefined
}

/** True when `id` is a valid workspace id (see `workspaceIdProblem`). */
export function isValidWorkspaceId(id: string): boolean {
  return workspaceIdProblem(id) === undefined
}
