/**
 * Who made a content doc's changes since its last version.
 *
 * A version recorded on demand (`history()`, a save, a checkpoint, the
 * version a stale write keeps) is often recorded by another party than the
 * one who typed: a person edits in the browser, an agent lists the file's
 * history a moment later. Its author should be the person, not the agent.
 *
 * Yjs records which client (a doc's `clientID`) made each insert, not who
 * that is; the versions array does: every version is an item whose client is
 * the recorder's, and whose `author` names it. So the authors of the inserts
 * since the last version are the authors known for their clients. A client
 * that never recorded a version here, and changes made of deletions only
 * (Yjs does not record who deleted), count as `fallback` (the caller).
 */
import type * as Y from 'yjs'
import { firstItem } from '../internals/yjs.js'
import { contentClientsSince, lastStoredVersion, VERSIONS_KEY, versionSnapshot } from './file-history.js'

/** Author of each client that recorded a version on `doc`. */
function versionAuthors(doc: Y.Doc): Map<number, string> {
  const authors = new Map<number, string>()
  const versions = doc.share.get(VERSIONS_KEY)
  if (!versions) return authors
  for (let n = firstItem(versions); n !== null; n = n.right) {
    if (n.deleted || !n.countable) continue
    const last = n.content.getContent().at(-1) as { author?: unknown } | undefined
    if (typeof last?.author === 'string') authors.set(n.id.client, last.author)
  }
  return authors
}

/**
 * The author(s) of `doc`'s content changes since its last version, sorted and joined with
 * `, `; `fallback` for this replica's own changes and for changes whose author is unknown.
 */
export function pendingAuthors(doc: Y.Doc, fallback: string): string {
  const last = lastStoredVersion(doc)
  const clients = contentClientsSince(doc, last ? versionSnapshot(doc, last).sv : new Map())
  if (clients.size === 0) return fallback
  const known = versionAuthors(doc)
  known.set(doc.clientID, fallback)
  const authors = new Set<string>()
  for (const client of clients) authors.add(known.get(client) ?? fallback)
  return [...authors].sort().join(', ')
}
