/**
 * Differential tests: `grep` through the index prints byte for byte what
 * just-bash's builtin grep prints scanning every file, for random corpora,
 * patterns (fixed, BRE, ERE) and flags, before and after edits.
 */
import { createFileSystem, paths, type YjsFileSystem } from '@yfs/core'
import { SEARCH_WORDS, searchTextArbitrary } from '@yfs/core/testing'
import fc from 'fast-check'
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import { grepRequirement } from './grep-requirement.js'
import { createIndexedGrep } from './indexed-grep.js'

const RUNS = Number(process.env.YFS_FUZZ_RUNS ?? 40)
// A fixed seed (YFS_FUZZ_SEED picks another): the hit counts checked below are then a property of the cases.
const SEED = Number(process.env.YFS_FUZZ_SEED ?? 20261122)

const fileArb = fc.record({
  path: fc
    .tuple(
      fc.constantFrom('/', '/a/', '/b/', '/a/c/', '/.hidden/'),
      fc.constantFrom('x.md', 'y.txt', 'z', '.dot', 'w.ts'),
    )
    .map(([d, n]) => d + n),
  text: searchTextArbitrary,
})

const patternArb = fc.oneof(
  fc.constantFrom(...SEARCH_WORDS),
  fc.constantFrom(...SEARCH_WORDS).map((w) => w.toUpperCase()),
  fc.constantFrom(
    'the',
    'alpha',
    'colou*r',
    'colou\\?r',
    'al.ha',
    '[Aa]lpha',
    '^the',
    'then$',
    'x[0-9]',
    'foo_bar',
    'a\\.b',
    'the other',
    'col(o|ou)r',
    'Stra.e',
    'ΟΔΟΣ',
    'gam\\+a',
  ),
)

const flagArb = fc.subarray([
  '-l',
  '-c',
  '-n',
  '-i',
  '-w',
  '-F',
  '-E',
  '-h',
  '-o',
  '-L',
  '-x',
  '-H',
  '-v',
  '--include=*.md',
  '--exclude=*.txt',
  '--exclude-dir=c',
  '-m1',
  '-C1',
])

async function populate(fs: YjsFileSystem, files: { path: string; text: string }[]): Promise<void> {
  for (const { path, text } of files) {
    await fs.mkdir(paths.dirname(path), { recursive: true })
    await fs.writeFile(path, text)
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

describe('indexed grep -r', () => {
  it('prints what the builtin grep prints, with fewer reads', async () => {
    let indexed = 0
    let skipped = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileArb, { minLength: 1, maxLength: 14 }),
        fc.array(fileArb, { maxLength: 4 }),
        fc.array(fc.tuple(patternArb, flagArb, fc.constantFrom('.', '/', '/a', 'a b', '/a/x.md')), {
          minLength: 1,
          maxLength: 4,
        }),
        async (files, edits, commands) => {
          const fs = createFileSystem()
          await populate(fs, files)
          await fs.writeFile('/bin.dat', new Uint8Array([0, 1, 2, 0x74, 0x68, 0x65, 0]))
          const grep = createIndexedGrep(fs)
          const plain = new Bash({ fs, cwd: '/' })
          const fast = new Bash({ fs: grep.view(fs), cwd: '/', customCommands: [grep.command] })
          for (const round of [0, 1]) {
            if (round === 1) await populate(fs, edits)
            for (const [pattern, flags, where] of commands) {
              const script = `grep -r ${flags.join(' ')} -e ${quote(pattern)} ${where}`
              const expected = await plain.exec(script)
              const actual = await fast.exec(script)
              expect({ script, out: actual.stdout, err: actual.stderr, code: actual.exitCode }).toEqual({
                script,
                out: expected.stdout,
                err: expected.stderr,
                code: expected.exitCode,
              })
            }
          }
          indexed += grep.stats.indexed
          skipped += grep.stats.skipped
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
    // The index really was used (most command lines qualify) and spared reads.
    expect(indexed).toBeGreaterThan(RUNS)
    expect(skipped).toBeGreaterThan(RUNS)
  }, 120_000)

  it('reads every file for command lines it cannot model', () => {
    expect(grepRequirement(['-r', 'foo|bar', '.'])).toBeUndefined()
    expect(grepRequirement(['-rv', 'foo', '.'])).toBeUndefined()
    expect(grepRequirement(['foo', 'a.txt'])).toBeUndefined()
    expect(grepRequirement(['-r', '-f', 'pats', '.'])).toBeUndefined()
    expect(grepRequirement(['-r', 'a\\x41bc', '.'])).toBeUndefined()
    expect(grepRequirement(['-r', 'ab', '.'])).toBeUndefined()
    expect(grepRequirement(['-rF', 'a|b(c)', '.'])).toBe('a|b(c)')
    expect(grepRequirement(['-ri', 'Hello.World', '.'])).toEqual({ and: ['hello', 'world'] })
    expect(grepRequirement(['-r', '-e', 'colou*red', '.'])).toEqual({ and: ['colo', 'red'] })
  })
})
