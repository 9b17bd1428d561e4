/**
 * Languages for the code editor, by file extension, each loaded on demand
 * (a dynamic import per language package), so the page only downloads the
 * grammar of a file someone opens.
 *
 * Unknown extensions get no language (plain text). Markdown here is
 * Markdown-as-text: files the Markdown codec does not own (`.mdx`, or any
 * name when the app runs without it).
 */
import type { Extension } from '@codemirror/state'

type Loader = () => Promise<Extension>

const javascript =
  (options: { typescript?: boolean; jsx?: boolean }): Loader =>
  async () =>
    (await import('@codemirror/lang-javascript')).javascript(options)
const json: Loader = async () => (await import('@codemirror/lang-json')).json()
const css: Loader = async () => (await import('@codemirror/lang-css')).css()
const html: Loader = async () => (await import('@codemirror/lang-html')).html()
const python: Loader = async () => (await import('@codemirror/lang-python')).python()
const rust: Loader = async () => (await import('@codemirror/lang-rust')).rust()
const go: Loader = async () => (await import('@codemirror/lang-go')).go()
const yaml: Loader = async () => (await import('@codemirror/lang-yaml')).yaml()
const markdown: Loader = async () => (await import('@codemirror/lang-markdown')).markdown()

const BY_EXTENSION: Record<string, Loader> = {
  ts: javascript({ typescript: true }),
  mts: javascript({ typescript: true }),
  cts: javascript({ typescript: true }),
  tsx: javascript({ typescript: true, jsx: true }),
  js: javascript({}),
  mjs: javascript({}),
  cjs: javascript({}),
  jsx: javascript({ jsx: true }),
  json: json,
  jsonc: json,
  css: css,
  html: html,
  htm: html,
  svg: html,
  xml: html,
  py: python,
  rs: rust,
  go: go,
  yaml: yaml,
  yml: yaml,
  md: markdown,
  markdown: markdown,
  mdx: markdown,
}

/** Display names of the languages, by extension (for the pane's status line). */
const LABELS: Record<string, string> = {
  ts: 'TypeScript',
  mts: 'TypeScript',
  cts: 'TypeScript',
  tsx: 'TypeScript (JSX)',
  js: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  jsx: 'JavaScript (JSX)',
  json: 'JSON',
  jsonc: 'JSON',
  css: 'CSS',
  html: 'HTML',
  htm: 'HTML',
  svg: 'SVG',
  xml: 'XML',
  py: 'Python',
  rs: 'Rust',
  go: 'Go',
  yaml: 'YAML',
  yml: 'YAML',
  md: 'Markdown',
  markdown: 'Markdown',
  mdx: 'Markdown',
}

/** The lower-case extension of a file name (`''` when there is none; dotfiles have none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
}

/** The language's display name for a file name, `Plain text` when none fits. */
export function languageLabel(name: string): string {
  return LABELS[extensionOf(name)] ?? 'Plain text'
}

/** Load the CodeMirror language for a file name; `undefined` for plain text. */
export async function loadLanguage(name: string): Promise<Extension | undefined> {
  const loader = BY_EXTENSION[extensionOf(name)]
  return loader ? loader() : undefined
}
