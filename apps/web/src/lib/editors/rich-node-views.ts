/**
 * Node and mark views of the rich-text editor, only where the schema's own
 * `toDOM` is not enough. Everything else renders from the schema.
 *
 * - Items with a boolean `checked` attribute (GFM task lists) get a real
 *   checkbox that toggles the attribute.
 * - Nodes whose name contains `html` (raw HTML from Markdown) show their
 *   source as text, whatever their `toDOM` says: workspace content never
 *   becomes markup in the page.
 * - Images load only from the workspace (a relative path, read through the
 *   filesystem into a blob URL with a sniffed raster type) or `data:image/…`
 *   raster URLs; anything else shows its alt text and address instead of
 *   requesting it (the app's CSP would refuse, with a console error).
 * - Links keep `http(s):`, `mailto:`, `#…` and relative targets; other
 *   schemes (`javascript:`, `data:`, …) render without an `href`.
 */
import type { Mark, Node, NodeType, Schema } from 'prosemirror-model'
import type { EditorView, MarkViewConstructor, NodeView, NodeViewConstructor } from 'prosemirror-view'

/** Turns an image `src` from the document into a URL safe to load, or `undefined`. */
export type ImageResolver = (src: string) => Promise<string | undefined>

const SAFE_LINK = /^(?:https?:|mailto:|#|\/|\.{1,2}\/|[^:]*$)/i
const DATA_RASTER = /^data:image\/(?:png|gif|jpeg|webp|avif|bmp);/i

/** The href to render for a link target, `undefined` for unsafe schemes. */
export function safeHref(href: unknown): string | undefined {
  if (typeof href !== 'string') return undefined
  const trimmed = href.trim()
  return SAFE_LINK.test(trimmed) ? trimmed : undefined
}

function hasCheckedAttr(type: NodeType): boolean {
  const attrs = type.spec.attrs
  return !!attrs && 'checked' in attrs
}

class TaskItemView implements NodeView {
  dom: HTMLElement
  contentDOM: HTMLElement
  #box: HTMLInputElement
  #node: Node

  constructor(node: Node, view: EditorView, getPos: () => number | undefined) {
    this.#node = node
    this.dom = document.createElement('li')
    this.#box = document.createElement('input')
    this.#box.type = 'checkbox'
    this.#box.className = 'task-checkbox'
    this.#box.contentEditable = 'false'
    this.#box.setAttribute('aria-label', 'Done')
    // Keep the editor's selection where it is when the box is clicked.
    this.#box.addEventListener('mousedown', (event) => event.preventDefault())
    this.#box.addEventListener('click', (event) => {
      const pos = getPos()
      if (pos === undefined || !view.editable) {
        event.preventDefault()
        return
      }
      // The browser has toggled the box already; the document follows it.
      const checked = this.#box.checked
      view.dispatch(view.state.tr.setNodeMarkup(pos, undefined, { ...this.#node.attrs, checked }))
    })
    this.contentDOM = document.createElement('div')
    this.contentDOM.className = 'task-content'
    this.dom.append(this.#box, this.contentDOM)
    this.#render(node)
  }

  #render(node: Node): void {
    const task = typeof node.attrs.checked === 'boolean'
    this.dom.className = task ? 'task-item' : ''
    this.#box.hidden = !task
    this.#box.checked = node.attrs.checked === true
    this.dom.toggleAttribute('data-checked', node.attrs.checked === true)
  }

  update(node: Node): boolean {
    if (node.type !== this.#node.type) return false
    this.#node = node
    this.#render(node)
    return true
  }

  stopEvent(event: Event): boolean {
    return event.target === this.#box
  }

  ignoreMutation(mutation: MutationRecord | { type: 'selection'; target: globalThis.Node }): boolean {
    return mutation.target === this.#box
  }
}

/** Raw HTML: its source, as text. Leaf nodes keep it in an attribute, others as their text content. */
class HtmlSourceView implements NodeView {
  dom: HTMLElement
  contentDOM?: HTMLElement
  #node: Node

  constructor(node: Node) {
    this.#node = node
    const inline = node.isInline
    this.dom = document.createElement(inline ? 'code' : 'pre')
    this.dom.className = 'md-html'
    this.dom.title = 'HTML (shown as source)'
    if (node.isLeaf) this.dom.textContent = leafSource(node)
    else this.contentDOM = this.dom
  }

  update(node: Node): boolean {
    if (node.type !== this.#node.type) return false
    this.#node = node
    if (node.isLeaf) this.dom.textContent = leafSource(node)
    return true
  }
}

function leafSource(node: Node): string {
  for (const value of Object.values(node.attrs)) if (typeof value === 'string' && value) return value
  return node.textContent
}

class ImageView implements NodeView {
  dom: HTMLElement
  #node: Node
  #url: string | undefined
  #revoke: boolean
  #destroyed = false

  constructor(node: Node, resolve: ImageResolver | undefined) {
    this.#node = node
    this.#revoke = false
    this.dom = document.createElement('span')
    this.dom.className = 'md-image'
    this.#placeholder('loading…')
    const src = typeof node.attrs.src === 'string' ? node.attrs.src.trim() : ''
    if (DATA_RASTER.test(src)) this.#show(src, false)
    else if (resolve && !/^[a-z][a-z0-9+.-]*:/i.test(src) && src)
      resolve(src).then(
        (url) => (url ? this.#show(url, url.startsWith('blob:')) : this.#placeholder('not found')),
        () => this.#placeholder('not found'),
      )
    else this.#placeholder(src ? 'external image, not loaded' : 'no address')
  }

  #placeholder(reason: string): void {
    if (this.#destroyed) return
    const alt = String(this.#node.attrs.alt ?? '')
    const src = String(this.#node.attrs.src ?? '')
    this.dom.replaceChildren()
    this.dom.classList.add('md-image-missing')
    this.dom.textContent = `[image: ${alt || 'untitled'} (${src}${src ? ' — ' : ''}${reason})]`
  }

  #show(url: string, revoke: boolean): void {
    if (this.#destroyed) {
      if (revoke) URL.revokeObjectURL(url)
      return
    }
    this.#url = url
    this.#revoke = revoke
    const img = document.createElement('img')
    img.src = url
    img.alt = String(this.#node.attrs.alt ?? '')
    if (this.#node.attrs.title) img.title = String(this.#node.attrs.title)
    this.dom.classList.remove('md-image-missing')
    this.dom.replaceChildren(img)
  }

  update(node: Node): boolean {
    // A changed src needs a fresh lookup: let ProseMirror rebuild the view.
    if (node.type !== this.#node.type || node.attrs.src !== this.#node.attrs.src) return false
    this.#node = node
    return true
  }

  destroy(): void {
    this.#destroyed = true
    if (this.#url && this.#revoke) URL.revokeObjectURL(this.#url)
  }
}

function linkView(mark: Mark): { dom: HTMLElement } {
  const a = document.createElement('a')
  const href = safeHref(mark.attrs.href)
  if (href !== undefined) a.href = href
  if (mark.attrs.title) a.title = String(mark.attrs.title)
  a.rel = 'noopener noreferrer nofollow'
  a.target = '_blank'
  return { dom: a }
}

/** Node views for the nodes of a schema that need one. */
export function richNodeViews(
  schema: Schema,
  resolveImage?: ImageResolver,
): Record<string, NodeViewConstructor> {
  const views: Record<string, NodeViewConstructor> = {}
  for (const [name, type] of Object.entries(schema.nodes)) {
    if (name.includes('html')) views[name] = (node) => new HtmlSourceView(node)
    else if (name === 'image') views[name] = (node) => new ImageView(node, resolveImage)
    else if (hasCheckedAttr(type)) views[name] = (node, view, getPos) => new TaskItemView(node, view, getPos)
  }
  return views
}

/** Mark views: links with safe targets. */
export function richMarkViews(schema: Schema): Record<string, MarkViewConstructor> {
  return schema.marks.link ? { link: (mark) => linkView(mark) } : {}
}
