/**
 * Document options extension: content docs keep deleted content (`gc: false`),
 * like core's pool, so file history snapshots and a stale write's base stay
 * readable for every client, also one that syncs the doc fresh; the main doc
 * collects garbage (its superseded rows would otherwise pile up).
 *
 * An extension, not the configuration's `onCreateDocument`: Hocuspocus 3.4
 * never calls that configuration-level hook (its `configure` does not list it
 * among the hooks it wraps), and takes a document's options from the value the
 * last extension's `onCreateDocument` resolves to. So no other extension may
 * define the hook (a contract test checks the options a loaded doc gets).
 *
 * The guid is the document's name: without one `Y.Doc` draws a random UUID,
 * 31 calls of `crypto.getRandomValues` (lib0's `uuidv4`), which cost more than
 * loading a small content doc. A top-level doc's guid is never synced.
 */
import type { Extension, onCreateDocumentPayload } from '@hocuspocus/server'
import { parseDocName } from '@yfs/protocol'

/** `Y.Doc` options of a server document by its name. */
export function documentOptions(documentName: string): { gc: boolean; guid: string } {
  return { gc: parseDocName(documentName)?.kind !== 'content', guid: documentName }
}

export function createDocumentOptionsExtension(): Extension {
  return {
    extensionName: 'yfs-document-options',
    async onCreateDocument({ documentName }: onCreateDocumentPayload) {
      return documentOptions(documentName)
    },
  }
}
