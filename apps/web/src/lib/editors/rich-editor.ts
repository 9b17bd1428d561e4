/**
 * The rich-text editor for Markdown files: a plain ProseMirror editor over
 * `markdownSchema` from @yfs/markdown — the very schema the headless codec
 * parses into and serialises from — bound to `Y.XmlFragment(RICHTEXT_KEY)`
 * with y-prosemirror. What a person writes here is what `cat` shows an
 * agent, and an agent's `sed -i` arrives here as a small diff (the codec
 * writes with `updateYFragment`), with the person's selection kept through
 * relative positions.
 *
 * Nodes and marks render from the schema's own `toDOM`; node views exist
 * only for task checkboxes, raw HTML (shown as source), images and links
 * (rich-node-views.ts), so nodes the schema gains later work unchanged.
 * Undo is y-prosemirror's (only this editor's edits), remote cursors come
 * from the doc's awareness.
 */

import type { DocAwareness } from '@yfs/client'
import { markdownSchema, RICHTEXT_KEY } from '@yfs/markdown'
import { baseKeymap } from 'prosemirror-commands'
import { dropCursor } from 'prosemirror-dropcursor'
import { gapCursor } from 'prosemirror-gapcursor'
import { keymap } from 'prosemirror-keymap'
import type { Schema } from 'prosemirror-model'
import { EditorState, type Plugin } from 'prosemirror-state'
import { goToNextCell } from 'prosemirror-tables'
import { EditorView } from 'prosemirror-view'
import { yCursorPlugin, ySyncPlugin, yUndoPlugin } from 'y-prosemirror'
import type * as Y from 'yjs'
import { safeColor } from './presence.js'
import { richInputRules, richKeymap } from './rich-commands.js'
import { type ImageResolver, richMarkViews, richNodeViews } from './rich-node-views.js'

export interface RichEditorOptions {
  parent: HTMLElement
  /** The content doc of a Markdown file. */
  doc: Y.Doc
  awareness?: DocAwareness
  readOnly: boolean
  /** Accessible name of the editing area (the file's path). */
  label: string
  /** Called after every state change (toolbar state). */
  onState?: (state: EditorState) => void
  /** Loads workspace images for `![alt](src)`. */
  resolveImage?: ImageResolver
}

export interface RichEditor {
  readonly view: EditorView
  readonly schema: Schema
  setLabel(label: string): void
  setReadOnly(readOnly: boolean): void
  focus(): void
  destroy(): void
}

interface CursorUser {
  name?: unknown
  color?: unknown
}

/** A remote caret with the person's name; colour checked, name as text. */
function cursorBuilder(user: CursorUser, clientId: number): HTMLElement {
  const color = safeColor(user.color, clientId)
  const caret = document.createElement('span')
  caret.className = 'ProseMirror-yjs-cursor'
  caret.style.borderColor = color
  const label = document.createElement('div')
  label.style.backgroundColor = color
  label.textContent = typeof user.name === 'string' && user.name ? user.name.slice(0, 40) : 'Anonymous'
  caret.append('\u2060', label, '\u2060')
  return caret
}

function selectionBuilder(user: CursorUser, clientId: number) {
  return {
    style: `background-color: ${safeColor(user.color, clientId)}33`,
    class: 'ProseMirror-yjs-selection',
  }
}

/** Mount a rich-text editor on the Markdown body of `doc`. */
export function mountRichEditor(options: RichEditorOptions): RichEditor {
  const schema = markdownSchema
  const fragment = options.doc.getXmlFragment(RICHTEXT_KEY)
  let readOnly = options.readOnly
  let label = options.label
  const plugins: Plugin[] = [ySyncPlugin(fragment)]
  if (options.awareness) plugins.push(yCursorPlugin(options.awareness, { cursorBuilder, selectionBuilder }))
  plugins.push(yUndoPlugin(), richInputRules(schema))
  // Tab and Shift-Tab move between table cells (prosemirror-tables reads the schema's tableRoles);
  // outside a table they fall through to the list keys. No tableEditing plugin: its table fixing
  // would rewrite files on open.
  if (Object.values(schema.nodes).some((type) => type.spec.tableRole === 'table'))
    plugins.push(keymap({ Tab: goToNextCell(1), 'Shift-Tab': goToNextCell(-1) }))
  plugins.push(keymap(richKeymap(schema)), keymap(baseKeymap), dropCursor({ color: '#2563eb' }), gapCursor())
  const view: EditorView = new EditorView(options.parent, {
    state: EditorState.create({ schema, plugins }),
    editable: () => !readOnly,
    attributes: () => ({
      'aria-label': label,
      'aria-multiline': 'true',
      role: 'textbox',
      'aria-readonly': String(readOnly),
      class: 'rich-text',
      spellcheck: 'true',
    }),
    nodeViews: richNodeViews(schema, options.resolveImage),
    markViews: richMarkViews(schema),
    // `this`, not `view`: plugin views (y-prosemirror's sync) dispatch while the constructor runs.
    // A destroyed view can still get one: y-prosemirror batches awareness redraws in a timeout.
    dispatchTransaction(this: EditorView, tr) {
      if (this.isDestroyed) return
      this.updateState(this.state.apply(tr))
      options.onState?.(this.state)
    },
  })
  options.onState?.(view.state)

  const refresh = () => view.setProps({})
  return {
    view,
    schema,
    setLabel(next) {
      label = next
      refresh()
    },
    setReadOnly(next) {
      readOnly = next
      refresh()
    },
    focus() {
      view.focus()
    },
    destroy() {
      view.destroy()
      // The next editor on this doc (after a .md → .txt rename) reads `cursor` in another format.
      options.awareness?.setLocalStateField('cursor', null)
    },
  }
}
