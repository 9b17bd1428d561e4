/**
 * The one ProseMirror schema for Markdown in yfs, used headless (codec) and by
 * the web app's rich-text editor through y-prosemirror: CommonMark, GFM
 * (tables, task lists, strikethrough, autolinks), footnotes, HTML blocks and
 * inline HTML kept verbatim, and link reference definitions. Front matter is
 * not in the tree: it lives in a `Y.Map` (front-matter.ts).
 *
 * Rules that let the same module run in the browser and in the codec:
 * - no Node built-ins, no DOM access at import time;
 * - every node and mark has `toDOM` and `parseDOM`;
 * - every attribute is plain JSON (y-prosemirror stores them as
 *   `Y.XmlElement` attributes; `null` means "unset");
 * - HTML from files is never live markup: HTML blocks render as `<pre>` source
 *   text and inline HTML as `<code>` text;
 * - link and image URLs pass `safeUrl` before they reach the DOM.
 *
 * Source-preserving blocks: every node of the `block` group has three extra
 * attributes, `mdSource` (the Markdown it was parsed from, with the blank
 * lines after it), `mdHash` (fingerprint of its parsed content) and `mdNext`
 * (hash of the source of the block that followed it). The serializer emits
 * `mdSource` only while the block's content still has fingerprint `mdHash`,
 * so an editor never has to clear them: a stale source is simply ignored.
 * They are not rendered and not parsed from the DOM.
 *
 * y-prosemirror does not store marks on non-text inline nodes, so the parser
 * keeps none there: a link around an image becomes the image's `href` /
 * `linkTitle` attributes.
 */
import { type AttributeSpec, type DOMOutputSpec, type NodeSpec, Schema } from 'prosemirror-model'

/** Attributes every top-level block carries for source preservation (see the module header). */
export const SOURCE_ATTRS = ['mdSource', 'mdHash', 'mdNext'] as const

const sourceAttrs: Record<(typeof SOURCE_ATTRS)[number], AttributeSpec> = {
  mdSource: { default: null },
  mdHash: { default: null },
  mdNext: { default: null },
}

/** `href` unless its scheme can run code (`javascript:`, `vbscript:`, `data:` except images), else `null`. */
export function safeUrl(href: unknown, image = false): string | null {
  if (typeof href !== 'string') return null
  // Strip control characters and whitespace, which browsers ignore inside a scheme.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href.replace(/[\u0000-\u0020]/g, ''))?.[1]?.toLowerCase()
  if (scheme === 'javascript' || scheme === 'vbscript' || scheme === 'file') return null
  if (scheme === 'data' && !(image && /^data:image\/(gif|png|jpeg|webp);/i.test(href.trim()))) return null
  return href
}

const block = (spec: NodeSpec): NodeSpec => ({
  group: 'block',
  ...spec,
  attrs: { ...spec.attrs, ...sourceAttrs },
})

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)

const cell = (tag: 'td' | 'th'): NodeSpec => ({
  content: 'inline*',
  attrs: {
    colspan: { default: 1 },
    rowspan: { default: 1 },
    colwidth: { default: null },
    align: { default: null },
  },
  tableRole: tag === 'th' ? 'header_cell' : 'cell',
  isolating: true,
  parseDOM: [
    {
      tag,
      getAttrs: (dom) => {
        const el = dom as HTMLElement
        const align = el.style.textAlign
        return { align: align === 'left' || align === 'center' || align === 'right' ? align : null }
      },
    },
  ],
  toDOM: (node) => [tag, node.attrs.align ? { style: `text-align: ${node.attrs.align}` } : {}, 0],
})

export const markdownSchema: Schema = new Schema({
  nodes: {
    doc: { content: 'block+' },
    paragraph: block({ content: 'inline*', parseDOM: [{ tag: 'p' }], toDOM: () => ['p', 0] }),
    blockquote: block({
      content: 'block+',
      defining: true,
      parseDOM: [{ tag: 'blockquote' }],
      toDOM: () => ['blockquote', 0],
    }),
    horizontal_rule: block({
      attrs: { markup: { default: null } },
      parseDOM: [{ tag: 'hr' }],
      toDOM: () => ['hr'],
    }),
    heading: block({
      attrs: { level: { default: 1 } },
      content: 'inline*',
      defining: true,
      parseDOM: [1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, attrs: { level } })),
      toDOM: (node) => [`h${node.attrs.level}`, 0],
    }),
    code_block: block({
      attrs: { params: { default: '' } },
      content: 'text*',
      marks: '',
      code: true,
      defining: true,
      parseDOM: [
        {
          tag: 'pre',
          preserveWhitespace: 'full',
          getAttrs: (dom) => ({ params: (dom as HTMLElement).getAttribute('data-params') ?? '' }),
        },
      ],
      toDOM: (node) => ['pre', node.attrs.params ? { 'data-params': node.attrs.params } : {}, ['code', 0]],
    }),
    html_block: block({
      content: 'text*',
      marks: '',
      code: true,
      defining: true,
      parseDOM: [{ tag: 'pre[data-md-html]', preserveWhitespace: 'full', priority: 60 }],
      // Source text, never live markup.
      toDOM: () => ['pre', { 'data-md-html': '', class: 'md-html-block' }, ['code', 0]],
    }),
    ordered_list: block({
      attrs: { order: { default: 1 }, tight: { default: false }, delimiter: { default: null } },
      content: 'list_item+',
      parseDOM: [
        {
          tag: 'ol',
          getAttrs: (dom) => {
            const el = dom as HTMLElement
            return {
              order: el.hasAttribute('start') ? Number(el.getAttribute('start')) || 1 : 1,
              tight: el.hasAttribute('data-tight'),
            }
          },
        },
      ],
      toDOM: (node) => [
        'ol',
        {
          ...(node.attrs.order === 1 ? {} : { start: node.attrs.order }),
          ...(node.attrs.tight ? { 'data-tight': 'true' } : {}),
        },
        0,
      ],
    }),
    bullet_list: block({
      attrs: { tight: { default: false }, bullet: { default: null } },
      content: 'list_item+',
      parseDOM: [
        { tag: 'ul', getAttrs: (dom) => ({ tight: (dom as HTMLElement).hasAttribute('data-tight') }) },
      ],
      toDOM: (node) => ['ul', node.attrs.tight ? { 'data-tight': 'true' } : {}, 0],
    }),
    list_item: {
      // `checked`: null for a plain item, true/false for a GFM task item.
      attrs: { checked: { default: null } },
      content: 'paragraph block*',
      defining: true,
      parseDOM: [
        {
          tag: 'li',
          getAttrs: (dom) => {
            const v = (dom as HTMLElement).getAttribute('data-checked')
            return { checked: v === 'true' ? true : v === 'false' ? false : null }
          },
        },
      ],
      toDOM: (node) => [
        'li',
        node.attrs.checked === null ? {} : { 'data-checked': String(node.attrs.checked), class: 'task-item' },
        0,
      ],
    },
    table: block({
      content: 'table_row+',
      tableRole: 'table',
      isolating: true,
      parseDOM: [{ tag: 'table' }],
      toDOM: () => ['table', ['tbody', 0]],
    }),
    table_row: {
      content: '(table_header | table_cell)+',
      tableRole: 'row',
      parseDOM: [{ tag: 'tr' }],
      toDOM: () => ['tr', 0],
    },
    table_header: cell('th'),
    table_cell: cell('td'),
    footnote_definition: block({
      attrs: { label: { default: '' } },
      content: 'block+',
      defining: true,
      parseDOM: [
        {
          tag: 'div[data-footnote]',
          getAttrs: (dom) => ({ label: (dom as HTMLElement).getAttribute('data-footnote') ?? '' }),
        },
      ],
      toDOM: (node) => ['div', { 'data-footnote': node.attrs.label, class: 'md-footnote' }, 0],
    }),
    link_definition: block({
      attrs: { label: { default: '' }, href: { default: '' }, title: { default: null } },
      atom: true,
      parseDOM: [
        {
          tag: 'div[data-link-definition]',
          getAttrs: (dom) => {
            const el = dom as HTMLElement
            return {
              label: el.getAttribute('data-link-definition') ?? '',
              href: el.getAttribute('data-href') ?? '',
              title: el.getAttribute('data-title'),
            }
          },
        },
      ],
      toDOM: (node): DOMOutputSpec => [
        'div',
        {
          'data-link-definition': node.attrs.label,
          'data-href': node.attrs.href,
          ...(node.attrs.title === null ? {} : { 'data-title': node.attrs.title }),
          class: 'md-link-definition',
        },
        `[${node.attrs.label}]: ${node.attrs.href}${node.attrs.title === null ? '' : ` "${node.attrs.title}"`}`,
      ],
    }),
    text: { group: 'inline' },
    image: {
      inline: true,
      group: 'inline',
      draggable: true,
      // `href`/`linkTitle`: the link around the image (`[![alt](src)](href)`).
      attrs: {
        src: { default: '' },
        alt: { default: null },
        title: { default: null },
        href: { default: null },
        linkTitle: { default: null },
      },
      parseDOM: [
        {
          tag: 'img[src]',
          getAttrs: (dom) => {
            const el = dom as HTMLElement
            const link = el.parentElement?.tagName === 'A' ? el.parentElement : null
            return {
              src: el.getAttribute('src') ?? '',
              alt: el.getAttribute('alt'),
              title: el.getAttribute('title'),
              href: link?.getAttribute('href') ?? null,
              linkTitle: link?.getAttribute('title') ?? null,
            }
          },
        },
      ],
      toDOM: (node): DOMOutputSpec => {
        const img: DOMOutputSpec = [
          'img',
          {
            src: safeUrl(node.attrs.src, true) ?? '',
            ...(node.attrs.alt === null ? {} : { alt: node.attrs.alt }),
            ...(node.attrs.title === null ? {} : { title: node.attrs.title }),
          },
        ]
        const href = safeUrl(node.attrs.href)
        if (node.attrs.href === null || href === null) return img
        return ['a', { href, ...(node.attrs.linkTitle === null ? {} : { title: node.attrs.linkTitle }) }, img]
      },
    },
    hard_break: {
      inline: true,
      group: 'inline',
      selectable: false,
      parseDOM: [{ tag: 'br' }],
      toDOM: () => ['br'],
    },
    html_inline: {
      inline: true,
      group: 'inline',
      atom: true,
      attrs: { html: { default: '' } },
      parseDOM: [
        {
          tag: 'code[data-md-html]',
          priority: 60,
          getAttrs: (dom) => ({ html: (dom as HTMLElement).textContent ?? '' }),
        },
      ],
      // Source text, never live markup.
      toDOM: (node) => ['code', { 'data-md-html': '', class: 'md-html-inline' }, str(node.attrs.html) ?? ''],
    },
    footnote_ref: {
      inline: true,
      group: 'inline',
      atom: true,
      attrs: { label: { default: '' } },
      parseDOM: [
        {
          tag: 'sup[data-footnote-ref]',
          getAttrs: (dom) => ({ label: (dom as HTMLElement).getAttribute('data-footnote-ref') ?? '' }),
        },
      ],
      toDOM: (node) => [
        'sup',
        { 'data-footnote-ref': node.attrs.label, class: 'md-footnote-ref' },
        `[^${node.attrs.label}]`,
      ],
    },
  },
  marks: {
    em: {
      parseDOM: [
        { tag: 'i' },
        { tag: 'em' },
        { style: 'font-style=italic' },
        { style: 'font-style=normal', clearMark: (m) => m.type.name === 'em' },
      ],
      toDOM: () => ['em'],
    },
    strong: {
      parseDOM: [
        { tag: 'strong' },
        { tag: 'b', getAttrs: (node) => (node as HTMLElement).style.fontWeight !== 'normal' && null },
        { style: 'font-weight=400', clearMark: (m) => m.type.name === 'strong' },
        {
          style: 'font-weight',
          getAttrs: (value) => /^(bold(er)?|[5-9]\d{2,})$/.test(value as string) && null,
        },
      ],
      toDOM: () => ['strong'],
    },
    link: {
      attrs: { href: { default: '' }, title: { default: null } },
      inclusive: false,
      parseDOM: [
        {
          tag: 'a[href]',
          getAttrs: (dom) => ({
            href: (dom as HTMLElement).getAttribute('href') ?? '',
            title: (dom as HTMLElement).getAttribute('title'),
          }),
        },
      ],
      toDOM: (mark) => [
        'a',
        {
          href: safeUrl(mark.attrs.href) ?? '',
          ...(mark.attrs.title === null ? {} : { title: mark.attrs.title }),
        },
      ],
    },
    code: { code: true, parseDOM: [{ tag: 'code' }], toDOM: () => ['code'] },
    strikethrough: {
      parseDOM: [{ tag: 's' }, { tag: 'del' }, { style: 'text-decoration=line-through' }],
      toDOM: () => ['s', 0],
    },
  },
})
