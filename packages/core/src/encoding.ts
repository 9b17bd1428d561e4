/**
 * Byte ↔ string conversions for the `BufferEncoding`s just-bash passes to
 * `readFile`/`writeFile`. No Node `Buffer`, so it runs in browsers too.
 */
export type BufferEncoding = 'utf8' | 'utf-8' | 'ascii' | 'binary' | 'base64' | 'hex' | 'latin1'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export const encodeUtf8 = (text: string): Uint8Array => encoder.encode(text)
export const decodeUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes)

// Strings up to this long are counted in a loop; longer ones are encoded in chunks into a
// scratch buffer (TextEncoder.encodeInto is SIMD-fast: 1 MB in a fraction of a millisecond,
// against milliseconds for the loop).
const COUNT_LOOP_MAX = 256
/** Characters encoded per `encodeInto` call (the scratch buffer holds 3 bytes per character). */
export const UTF8_LENGTH_CHUNK = 16 * 1024
let scratch: Uint8Array | undefined
const NON_ASCII = /[\u0080-\uffff]/

function countUtf8(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4
        i++
      } else n += 3
    } else n += 3
  }
  return n
}

/** UTF-8 byte length of a string without allocating the bytes (a lone surrogate counts as U+FFFD). */
export function utf8Length(text: string): number {
  // ASCII (most files) is one byte per character: the regex scan is native, ~3× the loop's speed.
  if (text.length <= COUNT_LOOP_MAX) return NON_ASCII.test(text) ? countUtf8(text) : text.length
  scratch ??= new Uint8Array(3 * (UTF8_LENGTH_CHUNK + 1))
  let n = 0
  for (let i = 0; i < text.length; ) {
    let end = Math.min(i + UTF8_LENGTH_CHUNK, text.length)
    // Never cut a surrogate pair in two (each half would count as a 3-byte U+FFFD).
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++
    n += encoder.encodeInto(text.slice(i, end), scratch).written
    i = end
  }
  return n
}

/** Each byte as one char (0–255): the "binary"/latin1 convention of just-bash's byte strings. */
export function latin1FromBytes(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[])
  }
  return out
}

export function bytesFromLatin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff
  return out
}

export function getEncoding(options?: { encoding?: BufferEncoding | null } | BufferEncoding): BufferEncoding {
  if (typeof options === 'string') return options
  return options?.encoding ?? 'utf8'
}

/**
 * String content in `encoding` → bytes. Bytes pass through as they are (a
 * `Buffer` or a view with an offset included); other views (`DataView`,
 * `Uint16Array`, which Node's `fs.writeFile` also takes) become a
 * `Uint8Array` over the same bytes.
 */
export function toBytes(content: string | Uint8Array, encoding: BufferEncoding): Uint8Array {
  if (content instanceof Uint8Array) return content
  if (ArrayBuffer.isView(content))
    return new Uint8Array(content.buffer, content.byteOffset, content.byteLength)
  switch (encoding) {
    case 'base64':
      return bytesFromLatin1(atob(content.replace(/[^A-Za-z0-9+/=]/g, '')))
    case 'hex': {
      const out = new Uint8Array(Math.floor(content.length / 2))
      for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(content.slice(i * 2, i * 2 + 2), 16)
      return out
    }
    case 'binary':
    case 'latin1':
    case 'ascii':
      return bytesFromLatin1(content)
    default:
      return encodeUtf8(content)
  }
}

/** Bytes → string in `encoding`. */
export function fromBytes(bytes: Uint8Array, encoding: BufferEncoding): string {
  switch (encoding) {
    case 'base64':
      return btoa(latin1FromBytes(bytes))
    case 'hex':
      return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
    case 'binary':
    case 'latin1':
      return latin1FromBytes(bytes)
    case 'ascii': {
      let out = ''
      for (const b of bytes) out += String.fromCharCode(b & 0x7f)
      return out
    }
    default:
      return decodeUtf8(bytes)
  }
}
