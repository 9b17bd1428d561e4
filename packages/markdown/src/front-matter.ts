/**
 * Front matter: the `---` YAML block at the top of a Markdown file, kept in
 * a `Y.Map` with one entry per top-level key, so concurrent edits of
 * different keys merge (per-key last-writer-wins; nested values are replaced
 * whole).
 *
 * YAML is parsed with the `core` schema: dates stay strings (`2026-02-09`),
 * so a round trip never turns them into timestamps. Invalid YAML is not
 * front matter: the whole text stays in the body, so nothing is lost.
 */
import { equalityDeep } from 'lib0/function'
import YAML from 'yaml'
import type * as Y from 'yjs'

export type FrontMatter = Record<string, unknown>

const OPEN = /^---\r?\n/

/** Split `---\n<yaml>---\n<body>`; no (valid) block → empty front matter and the whole text as body. */
export function splitFrontMatter(text: string): { data: FrontMatter; body: string } {
  const open = OPEN.exec(text)
  if (!open) return { data: {}, body: text }
  const rest = text.slice(open[0].length)
  const close = /^---[ \t]*(?:\r?\n|$)/m.exec(rest)
  if (!close) return { data: {}, body: text }
  try {
    const data: unknown = YAML.parse(rest.slice(0, close.index), { schema: 'core' })
    if (data !== null && (typeof data !== 'object' || Array.isArray(data))) return { data: {}, body: text }
    return { data: (data ?? {}) as FrontMatter, body: rest.slice(close.index + close[0].length) }
  } catch {
    // Not YAML: keep it as body text rather than lose it.
    return { data: {}, body: text }
  }
}

/** The front matter block for `data` (empty string when there are no keys). */
export function stringifyFrontMatter(data: FrontMatter): string {
  if (Object.keys(data).length === 0) return ''
  return `---\n${YAML.stringify(data, { schema: 'core', lineWidth: 0 })}---\n`
}

/** Plain object of a front-matter map. */
export function readFrontMatter(map: Y.Map<unknown>): FrontMatter {
  const out: FrontMatter = {}
  // Y.Map key order differs between replicas (it follows arrival): sort so every replica reads the same text.
  for (const key of [...map.keys()].sort()) out[key] = map.get(key)
  return out
}

/** Make `map` equal `data`, touching only keys whose value changed (call inside a transaction). */
export function updateFrontMatter(map: Y.Map<unknown>, data: FrontMatter): void {
  for (const key of [...map.keys()]) if (!(key in data)) map.delete(key)
  for (const [key, value] of Object.entries(data)) {
    if (!equalityDeep(map.get(key), value)) map.set(key, value)
  }
}
