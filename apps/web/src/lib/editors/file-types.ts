/**
 * What a binary file is, from its first bytes (never from its name alone:
 * a name is whatever an agent chose), and which types the page may show as
 * an image preview.
 *
 * Previews are raster images in `<img>` from a blob URL whose type is the
 * sniffed one. SVG is text in yfs (it opens in the code editor); its
 * preview is an `<img>` too, where scripts never run. Nothing is ever put
 * in an `<iframe>`, `<object>` or the DOM as markup.
 */

export interface BinaryType {
  /** MIME type used for previews (raster images) or shown to the person. */
  mime: string
  /** Short human description, e.g. `PNG image`. */
  label: string
  /** True when the page may show it in an `<img>`. */
  previewable: boolean
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean =>
  bytes.length >= offset + prefix.length && prefix.every((b, i) => bytes[offset + i] === b)

const ascii = (bytes: Uint8Array, from: number, to: number): string =>
  String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)))

/** Sniff the type of `bytes`; `application/octet-stream` when unknown. */
export function sniffBinaryType(bytes: Uint8Array): BinaryType {
  const image = (mime: string, label: string): BinaryType => ({ mime, label, previewable: true })
  const other = (mime: string, label: string): BinaryType => ({ mime, label, previewable: false })
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return image('image/png', 'PNG image')
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return image('image/jpeg', 'JPEG image')
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')
    return image('image/gif', 'GIF image')
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP')
    return image('image/webp', 'WebP image')
  if (ascii(bytes, 4, 12) === 'ftypavif') return image('image/avif', 'AVIF image')
  if (startsWith(bytes, [0x42, 0x4d]) && bytes.length > 26) return image('image/bmp', 'BMP image')
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return image('image/x-icon', 'Icon')
  if (ascii(bytes, 0, 5) === '%PDF-') return other('application/pdf', 'PDF document')
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return other('application/zip', 'ZIP archive')
  if (startsWith(bytes, [0x1f, 0x8b])) return other('application/gzip', 'gzip archive')
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return other('application/x-elf', 'ELF executable')
  if (startsWith(bytes, [0x00, 0x61, 0x73, 0x6d])) return other('application/wasm', 'WebAssembly module')
  if (ascii(bytes, 0, 4) === 'OggS') return other('audio/ogg', 'Ogg media')
  if (ascii(bytes, 0, 3) === 'ID3') return other('audio/mpeg', 'MP3 audio')
  if (ascii(bytes, 4, 8) === 'ftyp') return other('video/mp4', 'MP4 media')
  if (ascii(bytes, 0, 16) === 'SQLite format 3\0') return other('application/vnd.sqlite3', 'SQLite database')
  return other('application/octet-stream', 'Binary data')
}

/** Bytes as a short human size: `512 B`, `1.4 KB`, `3.2 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`
}
