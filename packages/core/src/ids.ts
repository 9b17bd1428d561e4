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
// 4,096 ids: 61,440 bytes, under getRandomValues's 65,536 per call; a call costs ~5 µs
// whatever its size, 36 ns per id at 128 ids, 3 ns at 4,096.
const POOL_IDS = 4096
let pool = new Uint8Array(0)
let used = 0

/** The alphabet's character code for the pool's byte at `i`. */
const c = (i: number): number => CODES[pool[i]! & 63]!

/**
 * A random id of `length` characters: what `nanoid(length)` gives (same alphabet, same source of
 * randomness), built as one flat string from a pool of random bytes. Every file write makes two
 * (its file id and its version id), each then a key in maps: nanoid builds one by `length`
 * concatenations and draws its bytes in smaller pools.
 */
export function randomId(length: number): string {
  if (used + length > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(FILE_ID_LENGTH * POOL_IDS))
    used = 0
  }
  const a = used
  used += length
  // One flat string in one call. The two lengths made on every write get their characters as
  // arguments: 70 ns an id, against 170–270 ns through `apply` on an array. (`c` is a module
  // function: a closure made per call costs more where names are kept, as tsx keeps them.)
  // biome-ignore format: one argument per character, on one line
  if (length === 15) return String.fromCharCode(c(a), c(a + 1), c(a + 2), c(a + 3), c(a + 4), c(a + 5), c(a + 6), c(a + 7), c(a + 8), c(a + 9), c(a + 10), c(a + 11), c(a + 12), c(a + 13), c(a + 14))
  // biome-ignore format: one argument per character, on one line
  if (length === 10) return String.fromCharCode(c(a), c(a + 1), c(a + 2), c(a + 3), c(a + 4), c(a + 5), c(a + 6), c(a + 7), c(a + 8), c(a + 9))
  const chars = new Uint16Array(length)
  for (let k = 0; k < length; k++) chars[k] = c(a + k)
  return String.fromCharCode.apply(null, chars as unknown as number[]) // apply takes any array-like
}

/** A new random file id (`FILE_ID_LENGTH` characters of nanoid's alphabet, see `randomId`). */
export function createFileId(): FileId {
  return randomId(FILE_ID_LENGTH) as FileId
}

/** Treat a string read from the files table or a doc name as a file id. */
export function asFileId(id: string): FileId {
  return id as FileId
}
