/**
 * The CLI reference (docs/cli.md), rendered from the `yfs` program's own
 * command definitions (commander): every command, its arguments, options,
 * environment variables and defaults, so the document says only what the
 * CLI does. `pnpm docs:cli` writes it; a test fails when it is stale.
 */
import { isAbsolute, relative } from 'node:path'
import type { Command, Option } from 'commander'
import { CONFIG_FILE_DOC } from './config-file.js'

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
  section(program, [], out)
  return `${out.join('\n').trimEnd()}\n`
}
