/** output: --verbose lines carry the direction, --json is one parseable object per line, quiet mode shows only what needs attention. */
import { PassThrough } from 'node:stream'
import { expect, it } from 'vitest'
import { createReporter, formatEvent } from './output.js'

it('formats changes with their direction only when verbose, and always shows skips and conflicts', () => {
  const change = { type: 'change', direction: 'to-disk', action: 'update', path: '/a.txt' } as const
  expect(formatEvent(change, true)).toBe('workspace → disk  update   /a.txt')
  expect(formatEvent(change, false)).toBeUndefined()
  expect(formatEvent({ ...change, direction: 'to-workspace', action: 'conflict' }, false)).toContain(
    'disk → workspace',
  )
  expect(formatEvent({ type: 'skip', path: '/x', code: 'EFBIG', reason: 'too big' }, false)).toBe(
    'skipped /x: EFBIG too big',
  )
})

it('--json writes one JSON object per event', () => {
  const out = new PassThrough()
  let text = ''
  out.on('data', (d) => {
    text += d
  })
  const report = createReporter({ verbose: false, json: true, out, err: out })
  report({ type: 'change', direction: 'to-workspace', action: 'create', path: '/n.md' })
  report({ type: 'progress', phase: 'initial', done: 1, total: 2 })
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(lines).toHaveLength(2)
  expect(lines[0]).toMatchObject({ type: 'change', direction: 'to-workspace', path: '/n.md' })
  expect(typeof lines[0].ts).toBe('string')
})
