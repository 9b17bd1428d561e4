/**
 * File ids. A file id is a 15-character nanoid, globally unique, and is also
 * the guid of the file's content `Y.Doc`. The brand makes passing a path
 * where an id is expected a type error; `asFileId` is the only cast.
 */
export type FileId = string & { readonly __brand: 'FileId' }

/** The virtual root folder. It has no row; children of the root have `parentId: null`. */
export const ROOT_ID = '__root__' as FileId

/** Length of generated ids (nanoid alphabet, ~89 bits). */
export const FILE_ID_LENGTH = 15

// nanoid's URL-safe alphabet: 64 symbols, so each random byte's low 6 bits pick one evenly.
const ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict'
const CODES = Uint16Array.from(ALPHABET, (c) => c.charCodeAt(0))
// Random bytes for this many ids are drawn at once (one getRandomValues call, not one per id).
const POOL_IDS = 128
let pool = new Uint8Array(0)
let used = 0
const scratch = new Uint16Array(FILE_ID_LENGTH)

/**
 * A new random file id: what `nanoid(FILE_ID_LENGTH)` gives (same alphabet, same source of
 * randomness), built as one flat string from a pool of random bytes. A file write makes one,
 * and the id is then a key in half a dozen maps: nanoid builds it by 15 concatenations.
 */
export function createFileId(): FileId {
  if (used + FILE_ID_LENGTH > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(FILE_ID_LENGTH * POOL_IDS))
    used = 0
  }
  for (let k = 0; k < FILE_ID_LENGTH; k++) scratch[k] = CODES[pool[used + k]! & 63]!
  used += FILE_ID_LENGTH
  // One flat string in one call.
  return String.fromCharCode.apply(null, scratch as unknown as number[]) as FileId // apply takes any array-like
}

/** Treat a string read from the files table or a doc name as a file id. */
export function asFileId(id: string): FileId {
  return id as FileId
}
