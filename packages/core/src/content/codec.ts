/**
 * ContentCodec: how a file's text lives in its content `Y.Doc`.
 *
 * A content doc has several root keys (`text`, `richtext`, `frontmatter`,
 * `binary`); the codec chosen by the file's *name* decides which keys are
 * active. Core ships the text codec; `@yfs/markdown` adds the Markdown one.
 * Binary content is not a codec: it is detected by content and handled by
 * core for every file kind.
 *
 * Rules every codec follows:
 * - `read` never writes to the doc.
 * - `write` applies the *smallest* change it can inside one `doc.transact`,
 *   so concurrent edits elsewhere in the file survive, and writing the text
 *   that `read` returns changes nothing.
 * - `hasContent` is cheap and lets core heal a file whose active keys are
 *   empty while another codec's keys hold content (an interrupted
 *   convert-on-switch; see heal-source.ts for when it does not).
 */
import type * as Y from 'yjs'
import type { TextMergeResult } from './three-way-merge.js'

export interface ContentCodec {
  /** Stable id, e.g. `'text'` or `'markdown'`. Two names with the same codec id never convert content. */
  readonly id: string
  /** True when this codec owns files with this name (e.g. `name.endsWith('.md')`). */
  matches(name: string): boolean
  /** The file's text as a tool or bash sees it. */
  read(doc: Y.Doc): string
  /**
   * Make the doc hold `text`, changing as little as possible, in one transaction with `origin`.
   * `current`: what `read(doc)` returns now, when the caller already has it (exact); a codec
   * may use it instead of reading the doc again.
   */
  write(doc: Y.Doc, text: string, origin?: unknown, current?: string): void
  /** True when the codec's root keys hold any content. */
  hasContent(doc: Y.Doc): boolean
  /** Calls `onChange` after every change to the codec's keys; returns an unsubscribe. */
  observe(doc: Y.Doc, onChange: (origin: unknown) => void): () => void
  /**
   * Three-way merge of texts as `read` returns them, for a stale write: `base`
   * what the writer saw, `ours` what it writes, `theirs` what is there now.
   * Where both changed a region, ours wins and the region is reported. Line
   * by line (`mergeText`) when absent; Markdown merges blocks and front-matter keys.
   */
  merge?(base: string, ours: string, theirs: string): TextMergeResult
}
