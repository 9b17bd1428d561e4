import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Command } from 'commander'
import { expect, it } from 'vitest'
import { createProgram } from './cli.js'
import { renderCliReference } from './cli-reference.js'

it('docs/cli.md is what the yfs program renders (run `pnpm docs:cli` after changing a command)', () => {
  const program = createProgram()
  const rendered = renderCliReference(program, fileURLToPath(new URL('../../../', import.meta.url)))
  expect(readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8')).toBe(rendered)
  // Every command and every one of its options is in it.
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      const name = [...path, sub.name()].join(' ')
      expect(rendered).toContain(`## ${name}\n`)
      for (const o of sub.options)
        if (!o.hidden) expect(rendered).toContain(`| \`${o.flags.replace(/\|/g, '\\|')}\``)
      walk(sub, [...path, sub.name()])
    }
  }
  walk(program, ['yfs'])
})

it('every command has --help examples', () => {
  const missing: string[] = []
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      const name = [...path, sub.name()].join(' ')
      if (sub.commands.length === 0) {
        let help = ''
        sub.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) })
        sub.outputHelp()
        if (!/Examples?:/.test(help)) missing.push(name)
      }
      walk(sub, [...path, sub.name()])
    }
  }
  walk(createProgram(), ['yfs'])
  expect(missing).toEqual([])
})
