/**
 * The CLI reference (docs/cli.md), rendered from the `yfs` program's own
 * command definitions (commander): every command, its arguments, options,
 * environment variables and defaults, so the document says only what the
 * CLI does. `pnpm docs:cli` writes it; a test fails when it is stale.
 */
import { isAbsolute, relative } from 'node:path'
import type { Command, Option } from 'commander'
import { CONFIG_FILE_DOC } from './config-file.js'

/** What each command's exit status means (kept beside the code paths that set them; see each command's module). */
export const EXIT_CODES: readonly (readonly [string, string])[] = [
  [
    'every command',
    '2 for a usage error (unknown option, missing or invalid argument), with the reason on stderr; `--help` exits 0',
  ],
  [
    '`ls` `tree` `stat` `cat` `history` `diff` `restore <path> <version>` `trash` `checkpoint`',
    '0 done; 1 the operation failed, its POSIX code and path on stderr (`ENOENT: no such file or directory, …`); 2 the workspace could not be opened (server unreachable, token refused, no such workspace, data folder in use)',
  ],
  [
    '`search`',
    '0 something matched; 1 nothing matched; 2 an invalid query (an invalid regex names the position) or the workspace could not be opened',
  ],
  ['`log`', '0 done; 2 any error'],
  [
    '`undo`',
    '0 everything was reverted; 1 something was kept as a conflict (reported); 2 an error (unknown session, read token, unreachable)',
  ],
  [
    '`bash`',
    "the script's exit status (one-shot) or the last line's (prompt); 130 for a line stopped by Ctrl+C; 2 the workspace could not be opened",
  ],
  [
    '`import` `export`',
    '0 done; 2 any error (a tar entry outside its target, a target folder that is not empty, unreachable), nothing half-written',
  ],
  [
    '`backup` `restore <file>`',
    '0 done; 1 refused or failed, `CODE: why` on stderr (EINVAL not a valid backup, EEXIST workspace not empty, EACCES the token may not, ENOENT, EBUSY); 2 the server or store could not be reached',
  ],
  [
    '`serve` `start` `sync` `mcp`',
    'run until stopped: 0 after SIGINT or SIGTERM (a second signal exits at once with 1); 1 when they cannot start (port in use, data folder busy) or fail; `mcp` 2 for flags that do not go together',
  ],
  ['`workspace create` `token create`', '0 done; 1 an error (`yfs: …` on stderr)'],
]

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

// Defaults that are paths inside the checkout (the built web app) are shown relative to it, so the
// reference is the same in every clone.
let checkoutRoot: string | undefined

function defaultOf(option: Option): string {
  const value = option.defaultValue as unknown
  if (value === undefined || value === false) return ''
  let text = Array.isArray(value) ? value.join(',') : String(value)
  if (checkoutRoot && isAbsolute(text) && !relative(checkoutRoot, text).startsWith('..'))
    text = `<checkout>/${relative(checkoutRoot, text)}`
  return `\`${text}\``
}

function section(command: Command, path: string[], out: string[]): void {
  const name = [...path, command.name()].join(' ')
  if (path.length > 0) {
    const args = command.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`))
    out.push(
      `## ${name}`,
      '',
      command.description(),
      '',
      '```',
      [name, ...args, '[options]'].join(' '),
      '```',
      '',
    )
    if (command.registeredArguments.some((a) => a.description)) {
      out.push('| argument | description |', '| --- | --- |')
      for (const a of command.registeredArguments) out.push(`| \`${a.name()}\` | ${cell(a.description)} |`)
      out.push('')
    }
    const options = command.options.filter((o) => !o.hidden)
    if (options.length > 0) {
      out.push('| option | description | default | environment |', '| --- | --- | --- | --- |')
      for (const o of options)
        out.push(
          `| \`${cell(o.flags)}\` | ${cell(o.description)}${o.argChoices ? ` (${o.argChoices.join(' \\| ')})` : ''} | ${defaultOf(o)} | ${o.envVar ? `\`${o.envVar}\`` : ''} |`,
        )
      out.push('')
    }
  }
  for (const sub of command.commands)
    section(sub, path.length > 0 ? [...path, command.name()] : [command.name()], out)
}

/** The whole reference as Markdown; `root`: the checkout, for defaults that are paths in it. */
export function renderCliReference(program: Command, root?: string): string {
  checkoutRoot = root
  const out = [
    '# CLI reference',
    '',
    '<!-- Generated from the command definitions by `pnpm docs:cli` (apps/cli/scripts/cli-reference.ts).',
    '     Do not edit: a test fails when this file differs from what the program renders. -->',
    '',
    `${program.description()}. Every command also answers \`--help\`, with examples where it has them.`,
    '',
    '| command | what it does |',
    '| --- | --- |',
  ]
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const name = [...path, sub.name()].join(' ')
      out.push(`| [\`${name}\`](#${name.replace(/ /g, '-')}) | ${cell(sub.description())} |`)
      walk(sub, [...path, sub.name()])
    }
  }
  walk(program, [program.name()])
  out.push('', '## Global options and the config file', '')
  out.push('| option | description | default | environment |', '| --- | --- | --- | --- |')
  for (const o of program.options.filter((o) => !o.hidden))
    out.push(
      `| \`${cell(o.flags)}\` | ${cell(o.description)} | ${defaultOf(o)} | ${o.envVar ? `\`${o.envVar}\`` : ''} |`,
    )
  const [text, example] = CONFIG_FILE_DOC.split('\n\n')
  out.push('', text!.replace(/\n/g, ' '), '', '```json', example!.trim(), '```', '')
  out.push(
    '## Exit codes and colours',
    '',
    '| command | exit status |',
    '| --- | --- |',
    ...EXIT_CODES.map(([who, what]) => `| ${cell(who)} | ${cell(what)} |`),
    '',
    'Text output meant for people (`diff` lines, `search` matches) is coloured only when it goes to a terminal, never when `NO_COLOR` is set to anything but an empty string (https://no-color.org), and also without a terminal when `FORCE_COLOR` is set (NO_COLOR wins). `--json` output is never coloured. Progress bars (import, export, backup, restore) are drawn on stderr only when it is a terminal.',
    '',
  )
  section(program, [], out)
  return `${out.join('\n').trimEnd()}\n`
}
