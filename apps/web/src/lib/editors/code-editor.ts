/**
 * The code editor: CodeMirror 6 bound to a file's `Y.Text` (core's
 * `TEXT_KEY`) through y-codemirror.next, so every keystroke is a Yjs edit
 * that agents, the daemon and other browsers see at once, and their edits
 * arrive as CodeMirror changes (the person's selection is mapped through
 * them, never reset).
 *
 * Undo is a `Y.UndoManager` over the text that only tracks this editor's
 * edits (an agent's write is not undone by Ctrl+Z). Remote cursors and
 * selections come from the doc's awareness with the names and colours
 * people announced (presence.ts).
 *
 * This module is loaded lazily (with CodeMirror itself); the grammar of a
 * language loads on top of it when a file needs it (languages.ts), so the
 * editor shows the text first and colours it a moment later.
 */
import { defaultKeymap, indentWithTab } from '@codemirror/commands'
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  foldKeymap,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language'
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search'
import { Compartment, EditorState, type Extension } from '@codemirror/state'
import {
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
} from '@codemirror/view'
import type { DocAwareness } from '@yfs/client'
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next'
import * as Y from 'yjs'
import { extensionOf, loadLanguage } from './languages.js'

export interface CodeEditorOptions {
  /** Element the editor is appended to. */
  parent: HTMLElement
  ytext: Y.Text
  /** Presence of the doc; no remote cursors without it. */
  awareness?: DocAwareness
  /** File name: picks the language and whether long lines wrap. */
  name: string
  readOnly: boolean
  /** Accessible name of the editing area (the file's path). */
  label: string
}

export interface CodeEditor {
  readonly view: EditorView
  /** Follow a rename: new language, wrapping and label. */
  rename(name: string, label: string): void
  setReadOnly(readOnly: boolean): void
  focus(): void
  destroy(): void
}

// Prose-like files wrap; code keeps its lines.
const WRAPPED = new Set(['', 'txt', 'md', 'markdown', 'mdx', 'rst', 'log', 'csv'])

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '13.5px', backgroundColor: 'var(--editor-bg, #fff)' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
    lineHeight: '1.55',
  },
  '.cm-content': { padding: '12px 0' },
  '.cm-gutters': { backgroundColor: '#f8fafc', color: '#94a3b8', borderRight: '1px solid #e2e8f0' },
  '.cm-activeLine': { backgroundColor: '#f1f5f980' },
  '.cm-activeLineGutter': { backgroundColor: '#e2e8f0', color: '#334155' },
  '&.cm-focused': { outline: 'none' },
  // Names stay visible on remote carets (y-codemirror.next shows them on hover only), as in the rich editor.
  '.cm-ySelectionInfo': {
    fontFamily: 'system-ui, sans-serif',
    fontSize: '11px',
    fontWeight: '600',
    padding: '1px 4px',
    opacity: '1',
    top: '-1.3em',
  },
})

function labelAttributes(label: string): Extension {
  return EditorView.contentAttributes.of({ 'aria-label': label })
}

function readOnlyExtensions(readOnly: boolean): Extension {
  return [EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]
}

/** Mount a CodeMirror editor on `ytext`; the language loads in the background. */
export function mountCodeEditor(options: CodeEditorOptions): CodeEditor {
  const language = new Compartment()
  const wrapping = new Compartment()
  const label = new Compartment()
  const readOnly = new Compartment()
  // Only this editor's edits are undoable (y-codemirror tags them with its sync config as origin).
  const undoManager = new Y.UndoManager(options.ytext)
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.ytext.toString(),
      extensions: [
        lineNumbers(),
        foldGutter(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        drawSelection(),
        dropCursor(),
        EditorState.allowMultipleSelections.of(true),
        rectangularSelection(),
        indentOnInput(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        bracketMatching(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        keymap.of([...yUndoManagerKeymap, ...defaultKeymap, ...searchKeymap, ...foldKeymap, indentWithTab]),
        yCollab(options.ytext, options.awareness ?? null, { undoManager }),
        theme,
        language.of([]),
        wrapping.of(WRAPPED.has(extensionOf(options.name)) ? EditorView.lineWrapping : []),
        label.of(labelAttributes(options.label)),
        readOnly.of(readOnlyExtensions(options.readOnly)),
      ],
    }),
  })

  let destroyed = false
  let languageRequest = 0
  const applyLanguage = (name: string) => {
    const request = ++languageRequest
    loadLanguage(name).then(
      (extension) => {
        if (destroyed || request !== languageRequest) return
        view.dispatch({ effects: language.reconfigure(extension ?? []) })
      },
      (error: unknown) => {
        // A grammar that fails to load leaves the text uncoloured; the editor keeps working.
        console.warn(`no syntax highlighting for ${name}:`, error)
      },
    )
  }
  applyLanguage(options.name)

  return {
    view,
    rename(name, newLabel) {
      applyLanguage(name)
      view.dispatch({
        effects: [
          wrapping.reconfigure(WRAPPED.has(extensionOf(name)) ? EditorView.lineWrapping : []),
          label.reconfigure(labelAttributes(newLabel)),
        ],
      })
    },
    setReadOnly(value) {
      view.dispatch({ effects: readOnly.reconfigure(readOnlyExtensions(value)) })
    },
    focus() {
      view.focus()
    },
    destroy() {
      destroyed = true
      view.destroy()
      undoManager.destroy()
      // The next editor on this doc (after a .txt → .md rename) reads `cursor` in another format.
      options.awareness?.setLocalStateField('cursor', null)
    },
  }
}
