/**
 * File ids. A file id is a 15-character nanoid, globally unique, and is also
 * the guid of the file's content `Y.Doc`. The brand makes passing a path
 * where an id is expected a type error; `asFileId` is the only cast.
 */
import { nanoid } from 'nanoid'

export type FileId = string & { readonly __brand: 'FileId' }

/** The virtual root folder. It has no row; children of the root have `parentId: null`. */
export const ROOT_ID = '__root__' as FileId

/** Length of generated ids (nanoid alphabet, ~89 bits). */
export const FILE_ID_LENGTH = 15

/** A new random file id. */
export function createFileId(): FileId {
  return nanoid(FILE_ID_LENGTH) as FileId
}

/** Treat a string read from the files table or a doc name as a file id. */
export function asFileId(id: string): FileId {
  return id as FileId
}
