/**
 * Output caps: text longer than a budget is cut, and the cut says how much
 * was left out, so a model knows it saw only part and can narrow its call.
 *
 * Invariant: capping is idempotent: text already cut to `max` (or less) keeps
 * its note and its counts, so a cut made early (in the bash worker, before
 * the output crosses threads) and the tool's cut agree.
 */

const NOTE = /\n… \[output cut: \d+ of \d+ characters not shown\]$/

/** Cut text to `max` characters with a note saying how much was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text
  const note = NOTE.exec(text)
  if (note && note.index <= max) return text
  return `${text.slice(0, max)}\n… [output cut: ${text.length - max} of ${text.length} characters not shown]`
}
