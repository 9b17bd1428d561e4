/**
 * Colours for what the CLI prints for people: on when the stream is a terminal, never with
 * `NO_COLOR` set to anything but "" (https://no-color.org), and on without a terminal when
 * `FORCE_COLOR` is set to anything but "0" (NO_COLOR still wins). `--json` output is never
 * coloured: the commands colour only their text output.
 */

export interface Palette {
  readonly enabled: boolean
  red(text: string): string
  green(text: string): string
  cyan(text: string): string
  bold(text: string): string
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`
const plain = (text: string) => text

/** Whether to colour output written to `stream` (process.stdout / stderr). */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

/** The palette for `stream`: real colours, or identity functions. */
export function paletteFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Palette {
  const on = useColor(stream, env)
  return {
    enabled: on,
    red: on ? sgr(31, 39) : plain,
    green: on ? sgr(32, 39) : plain,
    cyan: on ? sgr(36, 39) : plain,
    bold: on ? sgr(1, 22) : plain,
  }
}

/** A unified diff with its added lines green, removed lines red and hunk headers cyan. */
export function colorDiff(diff: string, palette: Palette): string {
  if (!palette.enabled) return diff
  return diff
    .split('\n')
    .map((line) =>
      line.startsWith('+++') || line.startsWith('---')
        ? palette.bold(line)
        : line.startsWith('+')
          ? palette.green(line)
          : line.startsWith('-')
            ? palette.red(line)
            : line.startsWith('@@')
              ? palette.cyan(line)
              : line,
    )
    .join('\n')
}
