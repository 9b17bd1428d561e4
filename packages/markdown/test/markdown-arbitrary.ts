/**
 * fast-check arbitraries for Markdown built from the schema's constructs:
 * ATX and setext headings, paragraphs with emphasis (`*`/`_`), strong,
 * code spans, strikethrough, links (inline, reference, autolink), images
 * (also inside links), inline HTML, footnote references, soft and hard
 * breaks (two spaces and backslash); bullet (`-`/`*`/`+`), ordered
 * (`.`/`)`) and task lists, block quotes, fenced and indented code with
 * blank lines, thematic breaks, GFM tables, HTML blocks, link reference
 * and footnote definitions. Blocks are separated by one or more blank lines.
 */
import fc from 'fast-check'

const word = fc.constantFrom(
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'zeta',
  'eta',
  'theta',
  'x1',
  'Über',
  'naïve',
)
const words = (min: number, max: number) =>
  fc.array(word, { minLength: min, maxLength: max }).map((ws) => ws.join(' '))
const url = fc.constantFrom(
  'https://example.com',
  'https://example.com/a_b?c=1',
  './docs/guide.md',
  '#anchor',
)

const inline: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: words(1, 4) },
  words(1, 2).map((w) => `*${w}*`),
  words(1, 2).map((w) => `_${w}_`),
  words(1, 2).map((w) => `**${w}**`),
  words(1, 2).map((w) => `__${w}__`),
  words(1, 2).map((w) => `~~${w}~~`),
  words(1, 2).map((w) => `\`${w}\``),
  fc.tuple(words(1, 2), url).map(([w, u]) => `[${w}](${u})`),
  fc.tuple(words(1, 2), url).map(([w, u]) => `[${w}](${u} "Title")`),
  fc.tuple(word, url).map(([w, u]) => `![${w}](${u})`),
  fc.tuple(word, url, url).map(([w, s, u]) => `[![${w}](${s})](${u})`),
  fc.constant('<https://example.org/path>'),
  fc.constant('https://bare.example.net/x'),
  fc.constant('<span class="k">html</span>'),
  fc.constant('[ref link][ref]'),
  fc.constant('[ref]'),
  fc.constant('note[^1]'),
  fc.constant('a &amp; b &lt;tag&gt; &copy;'),
  fc.constant('escaped \\* star \\_ and \\[ bracket'),
  // Text that would be markup at a line start (after a soft break) unless escaped.
  fc.constantFrom(
    '\\+ plus',
    '\\- minus',
    '\\# hash',
    '1\\. one',
    '2\\) two',
    '\\> quote',
    '\\=\\=',
    'a \\| b',
    '\\[ \\] box',
  ),
  fc.constantFrom('\\<div>', '&lt;p&gt;', '\\`tick\\`', 'snake_case_word', '2 * 3 * 4'),
)

const lineBreak = fc.constantFrom(' ', ' ', '\n', '  \n', '\\\n')

/** Inline content: pieces joined by spaces, soft breaks and hard breaks. */
const inlineText = fc
  .tuple(inline, fc.array(fc.tuple(lineBreak, inline), { maxLength: 5 }))
  .map(([first, rest]) => first + rest.map(([sep, piece]) => sep + piece).join(''))

const paragraph = inlineText
const heading = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), inline).map(([l, t]) => `${'#'.repeat(l)} ${t}`),
  fc.tuple(fc.constantFrom('=', '-'), inline).map(([c, t]) => `${t}\n${c.repeat(t.length > 3 ? 3 : 1)}`),
)
const codeLines = fc.array(fc.oneof(words(1, 3), fc.constant(''), fc.constant('  indented();')), {
  minLength: 1,
  maxLength: 5,
})
const fenced = fc
  .tuple(fc.constantFrom('```', '~~~'), fc.constantFrom('', 'ts', 'sh'), codeLines)
  .map(([f, info, lines]) => `${f}${info}\n${lines.join('\n')}\n${f}`)
const indentedCode = fc
  .array(words(1, 3), { minLength: 1, maxLength: 3 })
  .map((lines) => lines.map((l) => `    ${l}`).join('\n'))
const hr = fc.constantFrom('---', '***', '___', '- - -')
const table = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }))
  .chain(([cols, rows]) =>
    fc.tuple(
      fc.array(words(1, 2), { minLength: cols, maxLength: cols }),
      fc.array(fc.constantFrom('---', ':--', ':-:', '--:'), { minLength: cols, maxLength: cols }),
      fc.array(fc.array(fc.oneof(words(0, 2), inline), { minLength: cols, maxLength: cols }), {
        maxLength: rows,
      }),
    ),
  )
  .map(([head, align, body]) =>
    [head, align, ...body]
      .map((cells) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`)
      .join('\n'),
  )
const htmlBlock = fc.constantFrom(
  '<div align="center">\n  <img src="logo.png">\n</div>',
  '<!-- a comment -->',
  '<details>\n<summary>More</summary>\n\ntext inside\n\n</details>',
)
const definitions = fc.constantFrom(
  '[ref]: https://example.com/ref "Ref title"',
  '[ref]: <./a b.md>',
  '[^1]: The footnote text.',
)

const item = fc.tuple(fc.constantFrom('', '', '[ ] ', '[x] '), inlineText)
const list = fc
  .tuple(
    fc.constantFrom('-', '*', '+', '1.', '1)'),
    fc.array(item, { minLength: 1, maxLength: 4 }),
    fc.boolean(),
    fc.option(fc.array(word, { minLength: 1, maxLength: 2 })),
  )
  .map(([marker, items, loose, nested]) => {
    const ordered = /\d/.test(marker)
    const pad = ' '.repeat(marker.length + 1)
    return items
      .map(([task, text], i) => {
        const m = ordered ? `${i + 1}${marker.slice(-1)}` : marker
        let body = `${m} ${task}${text.replace(/\n/g, `\n${pad}`)}`
        if (nested && i === 0) body += `\n${pad}- ${nested.join(' ')}`
        return body
      })
      .join(loose ? '\n\n' : '\n')
  })
const quote = fc
  .array(inlineText, { minLength: 1, maxLength: 2 })
  .map((ps) => ps.map((p) => p.replace(/^/gm, '> ')).join('\n>\n'))

const block = fc.oneof(
  { weight: 5, arbitrary: paragraph },
  heading,
  fenced,
  indentedCode,
  hr,
  table,
  htmlBlock,
  definitions,
  list,
  quote,
)

/** Blocks of a document, each with the blank lines after it. */
export const markdownBlocks: fc.Arbitrary<string[]> = fc
  .array(fc.tuple(block, fc.constantFrom('\n\n', '\n\n', '\n\n\n')), { minLength: 1, maxLength: 8 })
  .map((blocks) => blocks.map(([b, sep]) => b + sep))

/** One more block, for edits. */
export const markdownBlock: fc.Arbitrary<string> = block.map((b) => `${b}\n\n`)

/** The document text of `blocks`; `end` replaces the blank lines after the last one. */
export const joinBlocks = (blocks: string[], end: string): string =>
  blocks.map((b, i) => (i === blocks.length - 1 ? b.replace(/\n+$/, '') + end : b)).join('')

/** A Markdown document built from the schema's constructs. */
export const markdownDocument: fc.Arbitrary<string> = fc
  .tuple(markdownBlocks, fc.constantFrom('\n', '\n', ''))
  .map(([blocks, end]) => joinBlocks(blocks, end))
