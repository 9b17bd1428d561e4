// Version ids are typed into commands (`yfs diff f <id>`): none may start with `-`, where it reads as an option.
import { describe, expect, it } from 'vitest'
import { newVersionId } from './version-list.js'

describe('newVersionId', () => {
  it('gives 10 characters of the nanoid alphabet, never a leading `-`, and no repeats', () => {
    const ids = Array.from({ length: 20_000 }, newVersionId)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{9}$/)
    expect(new Set(ids).size).toBe(ids.length)
    // The alphabet's `-` still appears after the first character (the ids stay as random there).
    expect(ids.some((id) => id.slice(1).includes('-'))).toBe(true)
  })
})
