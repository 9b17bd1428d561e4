/**
 * Incremental parse for writes: the new text is compared with what the
 * current document serialises to, block by block from both ends; the blocks
 * whose text is unchanged at the start and at the end are kept as they are
 * and only the stretch between them is parsed. An agent's one-paragraph
 * change to a long file parses one paragraph, not the file.
 *
 * The result must equal a full `parseMarkdown(text)` block for block (same
 * content, same output bytes), so the kept blocks are only those whose text
 * cannot parse differently in the new surroundings:
 * - kept blocks still hold the content their text was parsed from
 *   (`serializeBlocks` of the current document is what a reader sees);
 * - a boundary block is one that nothing after it can continue (not a list,
 *   code block or footnote) and ends with a blank line; the changed stretch
 *   starts and ends on a blank line and its first and the kept suffix's first
 *   line are not indented;
 * - link and footnote definitions outside the stretch are handed to the
 *   stretch's parse; a stretch that adds or removes a definition (in the old
 *   or the new text) falls back to a full parse, since references anywhere
 *   may resolve differently.
 */
import { normalizeReference } from 'markdown-it/lib/common/utils.mjs'
import { Fragment, type Node } from 'prosemirror-model'
import { parseMarkdownBlocks } from './parse.js'
import { endsWithBlank, needsNeighbour } from './serialize.js'

const DEFINITION_TEXT = /^[ \t>]*(?:[-*+]|\d{1,9}[.)])?[ \t]*\[[^\]\n]*\]:/m
const isDefinition = (n: Node) => n.type.name === 'link_definition' || n.type.name === 'footnote_definition'

function hasDefinition(node: Node): boolean {
  let found = isDefinition(node)
  node.descendants((n) => {
    if (isDefinition(n)) found = true
    return !found
  })
  return found
}

// markdown-it env with the definitions of `blocks` (first definition of a label wins, as in markdown-it).
function definitionsEnv(blocks: Node[]): object {
  const references: Record<string, { href: string; title: string }> = {}
  const refs: Record<string, number> = {}
  const visit = (n: Node) => {
    if (n.type.name === 'link_definition') {
      const key = normalizeReference(n.attrs.label)
      if (key !== '' && !(key in references))
        references[key] = { href: n.attrs.href, title: n.attrs.title ?? '' }
    } else if (n.type.name === 'footnote_definition') refs[`:${n.attrs.label}`] = -1
  }
  for (const block of blocks) {
    visit(block)
    block.descendants((n) => {
      visit(n)
      return true
    })
  }
  return { references, footnotes: { refs } }
}

const safeBoundary = (n: Node, piece: string) => !needsNeighbour(n) && endsWithBlank(piece)
const INDENTED = /^[ \t]/

type Parsed = { tree: Node; pieces: string[] | null }

/**
 * Parse `text` reusing the unchanged leading and trailing blocks of
 * `previous`, whose blocks read as `pieces` (`serializeBlocks(previous)`);
 * see the module header. Returns the tree and the text of its blocks.
 */
export function parseIncrementally(previous: Node, pieces: readonly string[], text: string): Parsed {
  const full = () => parseMarkdownBlocks(text)
  const n = pieces.length
  if (n < 3 || n !== previous.childCount) return full()
  // Leading blocks whose text starts the new text; the last kept one must be a safe boundary.
  let head = 0
  let headEnd = 0
  for (let i = 0, at = 0; i < n - 1; i++) {
    const piece = pieces[i]!
    if (piece === '' || !text.startsWith(piece, at)) break
    at += piece.length
    if (safeBoundary(previous.child(i), piece)) {
      head = i + 1
      headEnd = at
    }
  }
  // Trailing blocks whose text ends the new text, not overlapping the head; the first kept one starts a line unindented.
  let tail = n
  let tailStart = text.length
  for (let i = n - 1, at = text.length; i >= head; i--) {
    const piece = pieces[i]!
    if (piece === '' || at - piece.length < headEnd || !text.endsWith(piece, at)) break
    at -= piece.length
    // Nothing before the kept tail may continue into it: not indented, not a list (lists merge).
    if (!INDENTED.test(piece) && !needsNeighbour(previous.child(i))) {
      tail = i
      tailStart = at
    }
  }
  if (head === 0 && tail === n) return full()
  const middle = text.slice(headEnd, tailStart)
  // The stretch starts where the kept head's trailing blank lines end and ends on a blank line before the tail.
  if (head > 0 && /^\s/.test(middle)) return full()
  if (tail < n && middle !== '' && !endsWithBlank(middle)) return full()
  if (middle !== '' && middle.trim() === '') return full()
  // Definitions added or removed in the stretch may change how any reference resolves.
  const oldMiddle: Node[] = []
  for (let i = head; i < tail; i++) oldMiddle.push(previous.child(i))
  if (DEFINITION_TEXT.test(middle) || oldMiddle.some(hasDefinition)) return full()
  // Kept blocks read as their piece; one a person edited reads normalised, which re-parses to it.
  const kept: Node[] = []
  for (let i = 0; i < n; i++) if (i < head || i >= tail) kept.push(previous.child(i))
  const followedBy = tail < n ? pieces[tail]! : undefined
  const parsed: Parsed =
    middle === ''
      ? { tree: previous, pieces: [] }
      : parseMarkdownBlocks(middle, {
          env: definitionsEnv(kept),
          ...(followedBy === undefined ? {} : { followedBy }),
        })
  if (parsed.pieces === null) return full()
  const children = [
    ...kept.slice(0, head),
    ...(middle === '' ? [] : childrenOf(parsed.tree)),
    ...kept.slice(head),
  ]
  return {
    tree: previous.copy(Fragment.fromArray(children)),
    pieces: [...pieces.slice(0, head), ...parsed.pieces, ...pieces.slice(tail)],
  }
}

function childrenOf(doc: Node): Node[] {
  const out: Node[] = []
  doc.forEach((c) => {
    out.push(c)
  })
  return out
}
