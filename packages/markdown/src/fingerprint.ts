/**
 * Fingerprints for source-preserving blocks: a 53-bit hash (cyrb53, base-36)
 * of a node's content and attributes, leaving out the source attributes
 * themselves (at any depth, so a block a person moved into a list still
 * hashes by its content). Equal fingerprints mean "this block still is what
 * its stored source parses to"; a collision would only make a stale source
 * look current, at odds of about 1 in 2^53 per edit.
 *
 * Pure and DOM-free; the same fingerprint comes out of a freshly parsed node
 * and of the node y-prosemirror rebuilds from the `Y.XmlFragment`, because
 * the parser only produces attributes and marks that survive that trip.
 */
import type { Node } from 'prosemirror-model'
import { SOURCE_ATTRS } from './schema.js'

/** cyrb53 of `text` in base 36. */
export function hashString(text: string): string {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)
}

const skip = new Set<string>(SOURCE_ATTRS)

// A canonical string of the node: type, non-null attributes in schema order, marks, children.
function canonical(node: Node, out: string[]): void {
  out.push('(', node.type.name)
  for (const key in node.attrs) {
    const value = node.attrs[key]
    if (value !== null && value !== undefined && !skip.has(key))
      out.push(' ', key, '=', JSON.stringify(value))
  }
  for (const mark of node.marks) out.push(' @', mark.type.name, JSON.stringify(mark.attrs))
  if (node.isText) out.push(' ', JSON.stringify(node.text))
  else {
    node.forEach((child) => {
      canonical(child, out)
    })
  }
  out.push(')')
}

/** Fingerprint of `node`'s content, ignoring the source attributes. */
export function fingerprint(node: Node): string {
  const out: string[] = []
  canonical(node, out)
  return hashString(out.join(''))
}
