/**
 * ProseMirror document → Markdown text, the mirror of parse.ts.
 *
 * `serializeMarkdown` emits each top-level block's stored source while the
 * block still has the content that source was parsed from (fingerprint
 * check), so what was written comes back byte for byte; a block a person
 * changed is written in the normalised form of `serializeNormalized`. Where a
 * normalised block meets a stored source, or two sources meet that were not
 * neighbours when parsed, a blank line separates them so neither can run into
 * the other, and a list never merges with an adjacent list.
 *
 * The normalised form re-parses to the same document and is a fixed point:
 * line-start markers (`+ - * # > = 1.`) are escaped on every line, not only
 * the first; `[ ] * _ \` \\ ~` are escaped; `<` and `&` that would start
 * HTML or an entity are written as entities; blank lines inside code blocks
 * get no indentation; leading and trailing spaces of lines (which Markdown
 * drops) are not written.
 */
import { MarkdownSerializer, MarkdownSerializerState } from 'prosemirror-markdown'
import type { Mark, Node } from 'prosemirror-model'
import { fingerprint, hashString } from './fingerprint.js'

type NodeSerializer = (state: YfsState, node: Node, parent: Node, index: number) => void

const TABLE_DELIMITER_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/

// Fields prosemirror-markdown marks @internal (absent from its typings) that node serializers use.
interface StateFields {
  out: string
  delim: string
  atBlockStart: boolean
  inAutolink: boolean | undefined
}

// The serializer state with yfs's escaping (see the module header).
class YfsState extends MarkdownSerializerState {
  get f(): StateFields {
    // The fields exist at run time; only their declarations are stripped from the .d.ts.
    return this as unknown as StateFields
  }

  /** Neighbours a normalised top-level list must not share its marker with. */
  avoidMarkers: string[] = []

  override esc(str: string, startOfLine = false): string {
    let out = str
      .replace(/[`*\\~[\]_]/g, (m, i: number) =>
        m === '_' && i > 0 && i + 1 < str.length && /\w/.test(str[i - 1]!) && /\w/.test(str[i + 1]!)
          ? m
          : `\\${m}`,
      )
      .replace(/&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)/g, '&amp;')
      .replace(/<(?=[A-Za-z/!?])/g, '&lt;')
    if (out.includes('|') && TABLE_DELIMITER_ROW.test(out)) out = out.replace(/\|/g, '\\|')
    if (startOfLine) {
      out = out
        .replace(/^[ \t]+/, '')
        .replace(/^([-*>]|\+(?=[ \t]|$)|#{1,6}(?=[ \t]|$)|=+(?=[ \t]*$))/, '\\$1')
        .replace(/^(\d{1,9})([.)])(?=[ \t]|$)/, '$1\\$2')
    }
    return out
  }

  override text(text: string, escaping = true): void {
    const lines = text.split('\n')
    for (let i = 0; i < lines.length; i++) {
      this.write()
      let line = lines[i]!
      if (!escaping && line[0] === '[' && /(^|[^\\])!$/.test(this.f.out.slice(-2)))
        this.f.out = `${this.f.out.slice(0, -1)}\\!`
      // Spaces before a line end are dropped by Markdown (two make a hard break): never write them.
      if (escaping && i < lines.length - 1) line = line.replace(/[ \t]+$/, '')
      const lineStart =
        i > 0 ||
        this.f.atBlockStart ||
        this.f.out === this.f.delim ||
        this.f.out.endsWith(`\n${this.f.delim}`)
      this.f.out += escaping ? this.esc(line, lineStart) : line
      if (i !== lines.length - 1) this.f.out += '\n'
    }
  }
}

/** Marker of a normalised list: its own unless a neighbour of the same kind uses it. */
function listMarker(
  state: YfsState,
  node: Node,
  parent: Node,
  index: number,
  own: string,
  all: string[],
): string {
  const avoid = new Set(parent.type.name === 'doc' ? state.avoidMarkers : [])
  const prev = index > 0 ? parent.child(index - 1) : null
  if (prev && prev.type === node.type)
    avoid.add(listMarker(state, prev, parent, index - 1, markerOf(prev), all))
  if (!avoid.has(own)) return own
  return all.find((m) => !avoid.has(m)) ?? own
}

const markerOf = (list: Node): string =>
  list.type.name === 'bullet_list' ? (list.attrs.bullet ?? '-') : (list.attrs.delimiter ?? '.')

/** `<dest>` when the destination needs it, else the destination with parentheses escaped. */
function destination(href: string): string {
  if (href === '' || /[\s<>]/.test(href)) return `<${href.replace(/[<>\\]/g, '\\$&')}>`
  return href.replace(/[()\\]/g, '\\$&')
}

const title = (t: string | null): string => (t ? ` "${t.replace(/["\\]/g, '\\$&')}"` : '')

// Replace the output written since `start` (a heading or a table cell must stay on one line).
function oneLine(state: YfsState, start: number): void {
  state.f.out = state.f.out.slice(0, start) + state.f.out.slice(start).replace(/\\\n|\n/g, ' ')
}

const nodes: Record<string, NodeSerializer> = {
  blockquote(state, node) {
    state.wrapBlock('> ', null, node, () => state.renderContent(node))
  },
  code_block(state, node) {
    const ticks = node.textContent.match(/`{3,}/g)
    const fence = ticks ? `${ticks.sort().at(-1)}\`` : '```'
    state.write(`${fence}${node.attrs.params ?? ''}\n`)
    if (node.textContent !== '') {
      for (const line of node.textContent.split('\n')) {
        // Blank code lines get no indentation: code read back is the code written.
        if (line === '') state.f.out += `${state.f.delim.replace(/\s+$/, '')}\n`
        else {
          state.write(line)
          state.f.out += '\n'
        }
      }
    }
    state.write(fence)
    state.closeBlock(node)
  },
  html_block(state, node) {
    for (const [i, line] of node.textContent.split('\n').entries()) {
      if (i > 0) state.f.out += '\n'
      if (line === '') state.f.out += state.f.delim.replace(/\s+$/, '')
      else state.write(line)
    }
    state.closeBlock(node)
  },
  heading(state, node) {
    state.write(`${'#'.repeat(node.attrs.level)} `)
    const start = state.f.out.length
    state.renderInline(node, false)
    oneLine(state, start)
    // A trailing `#` run would be read as a closing sequence.
    state.f.out = state.f.out.replace(/([ \t])(#+)$/, '$1\\$2').replace(/[ \t]+$/, '')
    state.closeBlock(node)
  },
  horizontal_rule(state, node) {
    state.write(node.attrs.markup || '---')
    state.closeBlock(node)
  },
  bullet_list(state, node, parent, index) {
    const bullet = listMarker(state, node, parent, index, markerOf(node), ['-', '*', '+'])
    state.renderList(node, '  ', () => `${bullet} `)
  },
  ordered_list(state, node, parent, index) {
    const delim = listMarker(state, node, parent, index, markerOf(node), ['.', ')'])
    const start: number = node.attrs.order ?? 1
    const width = String(start + node.childCount - 1).length
    state.renderList(node, ' '.repeat(width + 2), (i) => {
      const n = String(start + i)
      return `${' '.repeat(width - n.length)}${n}${delim} `
    })
  },
  list_item(state, node) {
    if (node.attrs.checked !== null) state.write(node.attrs.checked ? '[x] ' : '[ ] ')
    const first = node.firstChild
    const second = node.childCount > 1 ? node.child(1) : undefined
    // `- - a` parses as an item whose paragraph is empty, then a list (the schema wants a
    // paragraph first). Written as is, the empty paragraph would end the marker's line (`-`,
    // a blank line, then the list), which reads back as an empty item and a separate list.
    if (
      first?.type.name === 'paragraph' &&
      first.childCount === 0 &&
      (second?.type.name === 'bullet_list' || second?.type.name === 'ordered_list') &&
      node.attrs.checked === null
    ) {
      node.forEach((child, _, i) => {
        if (i > 0) state.render(child, node, i)
      })
      return
    }
    state.renderContent(node)
  },
  paragraph(state, node) {
    state.renderInline(node)
    state.f.out = state.f.out.replace(/[ \t]+$/, '')
    state.closeBlock(node)
  },
  table(state, node) {
    const width = Math.max(...node.children.map((row) => row.childCount))
    const header = node.firstChild!
    const align = Array.from({ length: width }, (_, i) =>
      i < header.childCount ? header.child(i).attrs.align : null,
    )
    node.forEach((row, _, r) => {
      state.write('|')
      for (let c = 0; c < width; c++) {
        state.f.out += ' '
        if (c < row.childCount) {
          const start = state.f.out.length
          state.renderInline(row.child(c), false)
          oneLine(state, start)
          // Every `|` inside a cell is escaped, also in code spans (GFM splits cells first).
          state.f.out =
            state.f.out.slice(0, start) + state.f.out.slice(start).replace(/(^|[^\\])\|/g, '$1\\|')
        }
        state.f.out += ' |'
      }
      state.f.out += '\n'
      if (r === 0) {
        state.write(
          `|${align.map((a) => (a === 'center' ? ' :-: ' : a === 'left' ? ' :-- ' : a === 'right' ? ' --: ' : ' --- ')).join('|')}|`,
        )
        state.f.out += '\n'
      }
    })
    state.f.out = state.f.out.slice(0, -1)
    state.closeBlock(node)
  },
  footnote_definition(state, node) {
    state.wrapBlock('    ', `[^${node.attrs.label}]: `, node, () => state.renderContent(node))
  },
  link_definition(state, node) {
    state.write(`[${node.attrs.label}]: ${destination(node.attrs.href)}${title(node.attrs.title)}`)
    state.closeBlock(node)
  },
  image(state, node) {
    const img = `![${state.esc((node.attrs.alt ?? '').replace(/\n/g, ' '))}](${destination(node.attrs.src)}${title(node.attrs.title)})`
    state.write(
      node.attrs.href === null
        ? img
        : `[${img}](${destination(node.attrs.href)}${title(node.attrs.linkTitle)})`,
    )
  },
  hard_break(state, node, parent, index) {
    for (let i = index + 1; i < parent.childCount; i++) {
      if (parent.child(i).type !== node.type) {
        state.write('\\\n')
        return
      }
    }
  },
  html_inline(state, node) {
    state.write(node.attrs.html)
  },
  footnote_ref(state, node) {
    state.write(`[^${node.attrs.label}]`)
  },
  text(state, node) {
    state.text(node.text ?? '', !state.f.inAutolink)
  },
}

function isPlainUrl(link: Mark, parent: Node, index: number): boolean {
  if (link.attrs.title || !/^\w+:/.test(link.attrs.href)) return false
  const content = parent.child(index)
  if (!content.isText || content.text !== link.attrs.href || content.marks.at(-1) !== link) return false
  return index === parent.childCount - 1 || !link.isInSet(parent.child(index + 1).marks)
}

/** The normalised serializer (prosemirror-markdown's, configured for `markdownSchema`). */
export const markdownSerializer: MarkdownSerializer = new MarkdownSerializer(
  nodes as unknown as MarkdownSerializer['nodes'],
  {
    em: { open: '*', close: '*', mixable: true, expelEnclosingWhitespace: true },
    strong: { open: '**', close: '**', mixable: true, expelEnclosingWhitespace: true },
    link: {
      open(state, mark, parent, index) {
        const f = (state as YfsState).f
        f.inAutolink = isPlainUrl(mark, parent, index)
        return f.inAutolink ? '<' : '['
      },
      close(state, mark) {
        const f = (state as YfsState).f
        const auto = f.inAutolink
        f.inAutolink = undefined
        return auto ? '>' : `](${destination(mark.attrs.href)}${title(mark.attrs.title)})`
      },
      mixable: true,
    },
    code: {
      open: (_state, _mark, parent, index) => backticksFor(parent.child(index), -1),
      close: (_state, _mark, parent, index) => backticksFor(parent.child(index - 1), 1),
      escape: false,
    },
    strikethrough: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
  },
)

function backticksFor(node: Node, side: number): string {
  let len = 0
  if (node.isText) for (const m of node.text!.matchAll(/`+/g)) len = Math.max(len, m[0].length)
  let result = len > 0 && side > 0 ? ' `' : '`'
  result += '`'.repeat(len)
  if (len > 0 && side < 0) result += ' '
  return result
}

function newState(): YfsState {
  // The constructor's parameters are @internal in the typings.
  const State = YfsState as unknown as new (
    nodes: MarkdownSerializer['nodes'],
    marks: MarkdownSerializer['marks'],
    options: object,
  ) => YfsState
  return new State(markdownSerializer.nodes, markdownSerializer.marks, { tightLists: false })
}

// Normalised Markdown of top-level block `index` of `doc` (no trailing newline).
function normalisedBlock(doc: Node, index: number, avoidMarkers: string[]): string {
  const state = newState()
  state.avoidMarkers = avoidMarkers
  state.render(doc.child(index), doc, index)
  return state.f.out
}

/** True when top-level `block` can be written as its stored source. */
export function hasCurrentSource(block: Node): boolean {
  return typeof block.attrs.mdSource === 'string' && block.attrs.mdHash === fingerprint(block)
}

const isList = (n: Node) => n.type.name === 'bullet_list' || n.type.name === 'ordered_list'

/**
 * Blocks that what follows them can change (a list or footnote takes in indented
 * lines, indented code continues, a list merges with the next list of its kind):
 * their source is stored with `mdNext`, and they never go without one.
 */
export function needsNeighbour(n: Node): boolean {
  return isList(n) || n.type.name === 'code_block' || n.type.name === 'footnote_definition'
}

const endsWithLine = (s: string) => s.endsWith('\n') || s.endsWith('\r')

/** True when `s` ends in a blank line (a line end, then only spaces or tabs, then a line end), or is one. Scans from the end only. */
export function endsWithBlank(s: string): boolean {
  let i = s.length - 1
  if (i < 0 || (s[i] !== '\n' && s[i] !== '\r')) return false
  if (s[i] === '\n' && s[i - 1] === '\r') i--
  i--
  while (i >= 0 && (s[i] === ' ' || s[i] === '\t')) i--
  return i < 0 || s[i] === '\n' || s[i] === '\r'
}

/** What `serializeMarkdown` writes for top-level block `index` when it has no source: the normalised form and its separator. */
export function normalisedPiece(doc: Node, index: number, last: boolean): string {
  const text = normalisedBlock(doc, index, [])
  return text === '' ? '' : `${text}\n${last ? '' : '\n'}`
}

/** Serialise without stored sources: every block in the normalised form. */
export function serializeNormalized(doc: Node): string {
  const pieces: string[] = []
  doc.forEach((_child, _offset, i) => {
    const text = normalisedBlock(doc, i, [])
    if (text !== '') pieces.push(text)
  })
  return pieces.length === 0 ? '' : `${pieces.join('\n\n')}\n`
}

/**
 * The text `serializeMarkdown` writes for each top-level block, in order
 * (their concatenation is its output).
 */
export function serializeBlocks(doc: Node): string[] {
  const n = doc.childCount
  const verbatim: boolean[] = []
  const sourceHash: (string | null)[] = []
  doc.forEach((child, _offset, i) => {
    verbatim.push(hasCurrentSource(child))
    sourceHash.push(verbatim[i] ? hashString(child.attrs.mdSource) : null)
  })
  // Whether block i may follow block i - 1 with no blank line added: both are sources and either
  // they were neighbours when parsed or the first ends in a blank line and nothing can run into it.
  const adjacent = (i: number) => {
    if (!verbatim[i - 1] || !verbatim[i]) return false
    const prev = doc.child(i - 1)
    if (prev.attrs.mdNext !== null && prev.attrs.mdNext === sourceHash[i]) return true
    return !needsNeighbour(prev) && endsWithBlank(prev.attrs.mdSource)
  }
  for (let i = 1; i < n; i++) {
    const prev = doc.child(i - 1)
    const cur = doc.child(i)
    // A new neighbour that the block before would take in (a list of its kind, indented lines): normalise it.
    if (
      verbatim[i] &&
      !adjacent(i) &&
      needsNeighbour(prev) &&
      (prev.type === cur.type || cur.type.name === 'code_block' || /^[ \t]/.test(cur.attrs.mdSource))
    ) {
      verbatim[i] = false
    }
  }
  const pieces: string[] = []
  let out = ''
  for (let i = 0; i < n; i++) {
    const child = doc.child(i)
    let piece = ''
    if (i > 0 && out !== '' && !adjacent(i)) {
      // Separate from what came before by a blank line (added to the previous piece).
      let sep = ''
      if (!endsWithLine(out)) sep += '\n'
      if (!endsWithBlank(out.slice(-200) + sep)) sep += '\n'
      if (sep !== '') {
        pieces[pieces.length - 1] += sep
        out += sep
      }
    }
    if (verbatim[i]) piece = child.attrs.mdSource
    else {
      const avoid: string[] = []
      const next = i + 1 < n ? doc.child(i + 1) : null
      if (isList(child)) {
        if (next && verbatim[i + 1] && next.type === child.type) avoid.push(markerOf(next))
        const prev = i > 0 ? doc.child(i - 1) : null
        if (prev && verbatim[i - 1] && prev.type === child.type) avoid.push(markerOf(prev))
      }
      const text = normalisedBlock(doc, i, avoid)
      if (text !== '') piece = `${text}\n`
    }
    pieces.push(piece)
    out += piece
  }
  return pieces
}

/** Serialise a document of `markdownSchema`: stored sources where current, the normalised form elsewhere. */
export function serializeMarkdown(doc: Node): string {
  return serializeBlocks(doc).join('')
}
