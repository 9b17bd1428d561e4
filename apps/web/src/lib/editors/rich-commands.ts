/**
 * Commands, keys and input rules of the rich-text editor, built from the
 * schema it is given (@yfs/markdown's): a binding is only made when the
 * schema has the node or mark it needs, so the editor works unchanged when
 * the schema grows or shrinks.
 *
 * Input rules write only what Markdown would mean by the same characters
 * (`# ` heading, `- ` list, `**x**` bold, …). No smart quotes or dashes:
 * they would change the text agents and bash read back.
 */
import {
  chainCommands,
  exitCode,
  joinDown,
  joinUp,
  lift,
  selectParentNode,
  setBlockType,
  toggleMark,
  wrapIn,
} from 'prosemirror-commands'
import {
  InputRule,
  inputRules,
  textblockTypeInputRule,
  undoInputRule,
  wrappingInputRule,
} from 'prosemirror-inputrules'
import type { MarkType, NodeType, Schema } from 'prosemirror-model'
import { liftListItem, sinkListItem, splitListItem, wrapInList } from 'prosemirror-schema-list'
import type { Command, EditorState, Plugin } from 'prosemirror-state'
import { redoCommand, undoCommand } from 'y-prosemirror'

/** A toolbar or menu action: runs `command`; `active` for marks and block types that apply at the selection. */
export interface RichAction {
  id: string
  label: string
  /** Shortcut shown in the button title. */
  keys?: string
  command: Command
  active?: (state: EditorState) => boolean
}

const isMac = typeof navigator !== 'undefined' && /Mac|iP(hone|[oa]d)/.test(navigator.platform)
const MOD = isMac ? 'Cmd' : 'Ctrl'

/** Lists start tight (no blank lines between items), the way people and agents usually write them. */
function listAttrs(type: NodeType, attrs: Record<string, unknown> = {}): Record<string, unknown> {
  return type.spec.attrs && 'tight' in type.spec.attrs ? { ...attrs, tight: true } : attrs
}

function markActive(state: EditorState, type: MarkType): boolean {
  const { from, $from, to, empty } = state.selection
  if (empty) return !!type.isInSet(state.storedMarks ?? $from.marks())
  return state.doc.rangeHasMark(from, to, type)
}

function blockActive(state: EditorState, type: NodeType, attrs?: Record<string, unknown>): boolean {
  const { $from, to } = state.selection
  if (to > $from.end()) return false
  const parent = $from.parent
  if (parent.type !== type) return false
  return !attrs || Object.entries(attrs).every(([k, v]) => parent.attrs[k] === v)
}

function wrappedIn(state: EditorState, type: NodeType): boolean {
  const { $from } = state.selection
  for (let d = $from.depth; d > 0; d--) if ($from.node(d).type === type) return true
  return false
}

/** `**x**`-style rule: the text between the delimiters gets `type`, the delimiters go. */
function markRule(pattern: RegExp, type: MarkType): InputRule {
  return new InputRule(pattern, (state, match, start, end) => {
    const text = match[1]
    if (!text) return null
    const tr = state.tr
    tr.replaceWith(start, end, state.schema.text(text, [type.create()]))
    tr.removeStoredMark(type)
    return tr
  })
}

/** The toolbar's actions, in display order, for the nodes and marks `schema` has. */
export function richActions(schema: Schema): RichAction[] {
  const { nodes, marks } = schema
  const actions: RichAction[] = []
  if (nodes.paragraph)
    actions.push({
      id: 'paragraph',
      label: 'Paragraph',
      keys: `${MOD}+Alt+0`,
      command: setBlockType(nodes.paragraph),
      active: (s) => blockActive(s, nodes.paragraph!),
    })
  if (nodes.heading)
    for (const level of [1, 2, 3])
      actions.push({
        id: `h${level}`,
        label: `Heading ${level}`,
        keys: `${MOD}+Alt+${level}`,
        command: setBlockType(nodes.heading, { level }),
        active: (s) => blockActive(s, nodes.heading!, { level }),
      })
  const markActions: [string, string, string, string | undefined][] = [
    ['strong', 'bold', 'Bold', `${MOD}+B`],
    ['em', 'italic', 'Italic', `${MOD}+I`],
    ['strikethrough', 'strike', 'Strikethrough', `${MOD}+Shift+X`],
    ['code', 'code', 'Inline code', `${MOD}+\``],
  ]
  for (const [name, id, label, keys] of markActions) {
    const type = marks[name]
    if (type) actions.push({ id, label, keys, command: toggleMark(type), active: (s) => markActive(s, type) })
  }
  if (nodes.bullet_list)
    actions.push({
      id: 'bullet_list',
      label: 'Bullet list',
      keys: `${MOD}+Shift+8`,
      command: wrapInList(nodes.bullet_list, listAttrs(nodes.bullet_list)),
      active: (s) => wrappedIn(s, nodes.bullet_list!),
    })
  if (nodes.ordered_list)
    actions.push({
      id: 'ordered_list',
      label: 'Numbered list',
      keys: `${MOD}+Shift+9`,
      command: wrapInList(nodes.ordered_list, listAttrs(nodes.ordered_list)),
      active: (s) => wrappedIn(s, nodes.ordered_list!),
    })
  if (nodes.blockquote)
    actions.push({
      id: 'blockquote',
      label: 'Quote',
      keys: `${MOD}+Shift+.`,
      command: wrapIn(nodes.blockquote),
      active: (s) => wrappedIn(s, nodes.blockquote!),
    })
  if (nodes.code_block)
    actions.push({
      id: 'code_block',
      label: 'Code block',
      keys: `${MOD}+Alt+C`,
      command: setBlockType(nodes.code_block),
      active: (s) => blockActive(s, nodes.code_block!),
    })
  if (nodes.horizontal_rule) {
    const hr = nodes.horizontal_rule
    actions.push({
      id: 'horizontal_rule',
      label: 'Divider',
      command: (state, dispatch) => {
        dispatch?.(state.tr.replaceSelectionWith(hr.create()).scrollIntoView())
        return true
      },
    })
  }
  actions.push(
    { id: 'undo', label: 'Undo', keys: `${MOD}+Z`, command: undoCommand },
    { id: 'redo', label: 'Redo', keys: `${MOD}+Shift+Z`, command: redoCommand },
  )
  return actions
}

/** Set (or remove, with an empty href) a link on the selection. */
export function setLink(schema: Schema, href: string): Command {
  const link = schema.marks.link
  return (state, dispatch) => {
    if (!link || state.selection.empty) return false
    const { from, to } = state.selection
    const tr = state.tr.removeMark(from, to, link)
    if (href.trim()) tr.addMark(from, to, link.create({ href: href.trim() }))
    dispatch?.(tr.scrollIntoView())
    return true
  }
}

/** Keyboard bindings for `schema` (on top of prosemirror-commands' baseKeymap). */
export function richKeymap(schema: Schema): Record<string, Command> {
  const { nodes, marks } = schema
  const keys: Record<string, Command> = {
    'Mod-z': undoCommand,
    'Mod-y': redoCommand,
    'Shift-Mod-z': redoCommand,
    Backspace: undoInputRule,
    'Alt-ArrowUp': joinUp,
    'Alt-ArrowDown': joinDown,
    'Mod-BracketLeft': lift,
    Escape: selectParentNode,
  }
  if (marks.strong) keys['Mod-b'] = toggleMark(marks.strong)
  if (marks.em) keys['Mod-i'] = toggleMark(marks.em)
  if (marks.code) keys['Mod-`'] = toggleMark(marks.code)
  if (marks.strikethrough) keys['Shift-Mod-x'] = toggleMark(marks.strikethrough)
  if (nodes.bullet_list) keys['Shift-Mod-8'] = wrapInList(nodes.bullet_list, listAttrs(nodes.bullet_list))
  if (nodes.ordered_list) keys['Shift-Mod-9'] = wrapInList(nodes.ordered_list, listAttrs(nodes.ordered_list))
  if (nodes.blockquote) keys['Shift-Mod-.'] = wrapIn(nodes.blockquote)
  if (nodes.hard_break) {
    const br = nodes.hard_break
    const insert: Command = (state, dispatch) => {
      dispatch?.(state.tr.replaceSelectionWith(br.create()).scrollIntoView())
      return true
    }
    keys['Shift-Enter'] = chainCommands(exitCode, insert)
    keys['Mod-Enter'] = chainCommands(exitCode, insert)
  }
  // Every list item type (list_item, a GFM task_item, …): Enter splits, Tab nests, Shift-Tab lifts.
  for (const type of Object.values(nodes)) {
    if (!/(^|_)item$/.test(type.name)) continue
    keys.Enter = keys.Enter ? chainCommands(keys.Enter, splitListItem(type)) : splitListItem(type)
    keys.Tab = keys.Tab ? chainCommands(keys.Tab, sinkListItem(type)) : sinkListItem(type)
    keys['Shift-Tab'] = keys['Shift-Tab']
      ? chainCommands(keys['Shift-Tab'], liftListItem(type))
      : liftListItem(type)
    keys['Mod-]'] = keys.Tab
    keys['Mod-['] = keys['Shift-Tab']
  }
  if (nodes.paragraph) keys['Mod-Alt-0'] = setBlockType(nodes.paragraph)
  if (nodes.code_block) keys['Mod-Alt-c'] = setBlockType(nodes.code_block)
  if (nodes.heading)
    for (let level = 1; level <= 6; level++) keys[`Mod-Alt-${level}`] = setBlockType(nodes.heading, { level })
  return keys
}

/** Markdown-like input rules for `schema`. */
export function richInputRules(schema: Schema): Plugin {
  const { nodes, marks } = schema
  const rules: InputRule[] = []
  if (nodes.blockquote) rules.push(wrappingInputRule(/^\s*>\s$/, nodes.blockquote))
  if (nodes.ordered_list)
    rules.push(
      wrappingInputRule(
        /^(\d+)\.\s$/,
        nodes.ordered_list,
        (match) => listAttrs(nodes.ordered_list!, { order: Number(match[1]) }),
        (match, node) => node.childCount + node.attrs.order === Number(match[1]),
      ),
    )
  if (nodes.bullet_list)
    rules.push(wrappingInputRule(/^\s*([-+*])\s$/, nodes.bullet_list, listAttrs(nodes.bullet_list)))
  if (nodes.code_block) rules.push(textblockTypeInputRule(/^```$/, nodes.code_block))
  if (nodes.heading)
    rules.push(
      textblockTypeInputRule(/^(#{1,6})\s$/, nodes.heading, (match) => ({ level: match[1]!.length })),
    )
  if (nodes.horizontal_rule) {
    const hr = nodes.horizontal_rule
    rules.push(
      new InputRule(/^(?:---|\*\*\*|___)$/, (state, _match, start, end) => {
        const $start = state.doc.resolve(start)
        if ($start.parent.content.size !== end - start) return null
        return state.tr.replaceRangeWith($start.before(), $start.after(), hr.create())
      }),
    )
  }
  if (marks.strong) rules.push(markRule(/\*\*([^*\s](?:[^*]*[^*\s])?)\*\*$/, marks.strong))
  if (marks.em) rules.push(markRule(/(?<![*\w])\*([^*\s](?:[^*]*[^*\s])?)\*$/, marks.em))
  if (marks.em) rules.push(markRule(/(?<![_\w])_([^_\s](?:[^_]*[^_\s])?)_$/, marks.em))
  if (marks.code) rules.push(markRule(/`([^`]+)`$/, marks.code))
  if (marks.strikethrough) rules.push(markRule(/~~([^~\s](?:[^~]*[^~\s])?)~~$/, marks.strikethrough))
  return inputRules({ rules })
}
