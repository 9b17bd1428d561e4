/** File ids: nanoid's shape (15 symbols of its URL-safe alphabet), fresh every time. */
import { describe, expect, it } from 'vitest'
import { createFileId, FILE_ID_LENGTH } from './ids.js'

describe('createFileId', () => {
  it('makes distinct URL-safe ids of FILE_ID_LENGTH symbols, using the whole alphabet', () => {
    const ids = Array.from({ length: 5000 }, () => createFileId())
    for (const id of ids) expect(id).toMatch(new RegExp(`^[A-Za-z0-9_-]{${FILE_ID_LENGTH}}$`))
    expect(new Set(ids).size).toBe(ids.length)
    // 75,000 symbols drawn evenly from 64: every symbol shows up.
    expect(new Set(ids.join('')).size).toBe(64)
  })
})
