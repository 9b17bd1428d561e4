// Document names: what the server accepts as a main or content doc, and what it refuses.
import { expect, it } from 'vitest'
import { contentDocName, mainDocName, parseDocName } from './doc-names.js'

it('parses main and content doc names', () => {
  expect(parseDocName('team-1')).toEqual({ kind: 'main', workspace: 'team-1' })
  expect(parseDocName('team-1/V1StGXR8_Z5jdHi')).toEqual({
    kind: 'content',
    workspace: 'team-1',
    fileId: 'V1StGXR8_Z5jdHi',
  })
  expect(parseDocName(contentDocName('a.b', 'x'))).toEqual({ kind: 'content', workspace: 'a.b', fileId: 'x' })
  expect(parseDocName(mainDocName('ws'))).toEqual({ kind: 'main', workspace: 'ws' })
})

it('refuses names that are not ours', () => {
  for (const name of [
    '',
    '/x',
    '../w',
    '.hidden',
    'w/',
    'w/a/b',
    'w/a b',
    'w w',
    `${'w'.repeat(129)}`,
    'w/../x',
  ]) {
    expect(parseDocName(name), name).toBeUndefined()
  }
})
