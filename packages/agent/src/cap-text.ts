/**
 * Output caps: text longer than a budget is cut, and the cut says how much
 * was left out, so a model knows it saw only part and can narrow its call.
 */

/** Cut text to `max` characters with a note saying how much was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}\n… [output cut: ${text.length - max} of ${text.length} characters not shown]`
}
