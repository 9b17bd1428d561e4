/**
 * encodePng writes a valid PNG: signature, IHDR with the size and RGBA, every chunk's CRC, and an
 * IDAT that inflates to the rows with filter byte 0. (The start test checks the demo logo arrives
 * byte-exact; Chromium decoding it is covered by the app's image preview tests.)
 */
import { crc32, inflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { demoLogo } from './demo-files.js'
import { encodePng } from './png.js'

function chunks(png: Uint8Array): { type: string; data: Uint8Array }[] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  const out: { type: string; data: Uint8Array }[] = []
  for (let at = 8; at < png.byteLength; ) {
    const length = view.getUint32(at)
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8))
    const data = png.subarray(at + 8, at + 8 + length)
    expect(view.getUint32(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)))
    out.push({ type, data })
    at += 12 + length
  }
  return out
}

describe('encodePng', () => {
  it('encodes size, colour type and rows', () => {
    const rgba = Uint8Array.from([255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 1, 2, 3, 4])
    const png = encodePng(2, 2, rgba)
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    const [ihdr, idat, iend] = chunks(png)
    expect([ihdr!.type, idat!.type, iend!.type]).toEqual(['IHDR', 'IDAT', 'IEND'])
    expect([...ihdr!.data]).toEqual([0, 0, 0, 2, 0, 0, 0, 2, 8, 6, 0, 0, 0])
    expect([...inflateSync(idat!.data)]).toEqual([0, ...rgba.subarray(0, 8), 0, ...rgba.subarray(8)])
  })

  it('refuses sizes that do not match the pixels', () => {
    expect(() => encodePng(2, 2, new Uint8Array(15))).toThrow(RangeError)
    expect(() => encodePng(0, 1, new Uint8Array(0))).toThrow(RangeError)
  })

  it('draws the demo logo with transparent corners and opaque middle', () => {
    const [ihdr, idat] = chunks(demoLogo())
    expect(new DataView(ihdr!.data.buffer, ihdr!.data.byteOffset).getUint32(0)).toBe(96)
    const raw = inflateSync(idat!.data)
    const pixel = (x: number, y: number) =>
      raw.subarray(y * (1 + 96 * 4) + 1 + x * 4, y * (1 + 96 * 4) + 5 + x * 4)
    expect(pixel(0, 0)[3]).toBe(0)
    expect([...pixel(48, 50)]).toEqual([255, 255, 255, 255])
    expect(pixel(10, 48)[3]).toBe(255)
  })
})
