/** File ids: nanoid's shape (15 symbols of its URL-safe alphabet), fresh every time. */
import { describe, expect, it } from 'vitest'
import { createFileId, FILE_ID_LENGTH, randomId } from './ids.js'

describe('createFileId', () => {
  it('makes distinct URL-safe ids of FILE_ID_LENGTH symbols, using the whole alphabet', () => {
    const ids = Array.from({ length: 5000 }, () => createFileId())
    for (const id of ids) expect(id).toMatch(new RegExp(`^[A-Za-z0-9_-]{${FILE_ID_LENGTH}}$`))
    expect(new Set(ids).size).toBe(ids.length)
    // 75,000 symbols drawn evenly from 64: every symbol shows up.
    expect(new Set(ids.join('')).size).toBe(64)
  })
})

describe('randomId', () => {
  it('makes ids of the length asked, of different lengths from one pool, across many refills', () => {
    // 10,000 pairs draw 250,000 random bytes: the 61,440-byte pool is refilled four times, and
    // the lengths (10 and 15) do not divide it, so some refills come mid-pair.
    const short: string[] = []
    const long: string[] = []
    for (let i = 0; i < 10_000; i++) {
      short.push(randomId(10))
      long.push(createFileId())
    }
    for (const id of short) expect(id).toMatch(/^[A-Za-z0-9_-]{10}$/)
    for (const id of long) expect(id).toMatch(new RegExp(`^[A-Za-z0-9_-]{${FILE_ID_LENGTH}}$`))
    expect(new Set([...short, ...long]).size).toBe(20_000)
    expect(new Set(short.join('')).size).toBe(64)
  })

  it('makes ids of any other length the same way', () => {
    for (const length of [1, 7, 21, 64]) {
      const ids = Array.from({ length: 200 }, () => randomId(length))
      for (const id of ids) expect(id).toMatch(new RegExp(`^[A-Za-z0-9_-]{${length}}$`))
      if (length >= 7) expect(new Set(ids).size).toBe(ids.length)
    }
  })
})
