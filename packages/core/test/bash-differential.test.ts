/**
 * Differential test: the same just-bash scripts on just-bash's InMemoryFs
 * (the reference) and on YjsFileSystem must print the same stdout, stderr
 * and exit code. Dates are frozen so `ls -l` columns match, and the fixture
 * is written with the clock stepping so `find -newer` has something to
 * order.
 */
import { Bash, type IFileSystem, InMemoryFs } from 'just-bash'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createFileSystem } from '../src/index.js'

const T0 = new Date('2026-03-01T10:00:00Z').getTime()

const fixture: [string, string][] = [
  ['/src/index.ts', 'import { add } from "./lib/math"\nconsole.log(add(1, 2)) // TODO: remove\n'],
  ['/src/lib/math.ts', 'export function add(a: number, b: number) {\n  return a + b\n}\n'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: file content with a template literal
  ['/src/lib/strings.ts', 'export const greet = (n: string) => `hello ${n}` // TODO i18n\n'],
  ['/src/app.tsx', 'export const App = () => null\n'],
  ['/docs/guide.md', '# Guide\n\nalpha\nbeta\ngamma\ndelta\nepsilon\n'],
  ['/docs/notes.txt', 'TODO: write more notes\nsecond line\n'],
  ['/data/big.txt', `${'x'.repeat(3000)}\n`],
  ['/README.md', '# Project\n\nSee docs/guide.md\n'],
]

async function populate(fs: IFileSystem): Promise<void> {
  let t = T0
  // just-bash's default layout has /tmp; on YjsFileSystem it is always there (local to the instance).
  if (!(await fs.exists('/tmp'))) await fs.mkdir('/tmp')
  for (const [path, content] of fixture) {
    vi.setSystemTime(t)
    t += 60_000
    const dir = path.slice(0, path.lastIndexOf('/')) || '/'
    await fs.mkdir(dir, { recursive: true })
    await fs.writeFile(path, content)
  }
  vi.setSystemTime(t)
}

const cases: [string, string][] = [
  ['ls root', 'ls /'],
  ['ls -la', 'ls -la /src'],
  ['ls -R', 'ls -R /src /docs'],
  ['ls -l sizes', 'ls -l /data /docs'],
  ['ls missing', 'ls /nope'],
  ['cat', 'cat /src/lib/math.ts /docs/notes.txt'],
  ['cat missing', 'cat /src/missing.ts'],
  ['cat dir', 'cat /src'],
  ['head/tail', 'head -n 2 /docs/guide.md; tail -n 2 /docs/guide.md; head -c 10 /data/big.txt'],
  ['wc', 'wc -l -c /docs/guide.md /src/index.ts'],
  ['find name', "find / -name '*.ts' -not -path '/bin/*' | sort"],
  ['find type', 'find /src /docs -type d'],
  ['find maxdepth', 'find /src -maxdepth 1'],
  ['find newer', 'find /src /docs -newer /src/lib/math.ts -type f'],
  ['find size', 'find /data /docs -size +1k'],
  ['grep -rn include', "grep -rn TODO /src /docs --include='*.ts'"],
  ['grep -r', 'grep -r alpha /docs'],
  ['grep -c -i', 'grep -ci todo /docs/notes.txt /src/index.ts'],
  ['sed -i', "sed -i 's/alpha/ALPHA/' /docs/guide.md && cat /docs/guide.md"],
  ['redirects', 'echo one > /out.txt; echo two >> /out.txt; cat /out.txt; wc -l < /out.txt'],
  ['tee', 'echo teed | tee /docs/tee.txt /docs/tee2.txt >/dev/null; cat /docs/tee.txt /docs/tee2.txt'],
  ['mkdir -p', 'mkdir -p /a/b/c && touch /a/b/c/f && ls -R /a'],
  ['mkdir exists', 'mkdir /src'],
  ['rm -rf', 'rm -rf /src/lib && ls /src'],
  ['rm dir without -r', 'rm /src; echo $?'],
  ['rm missing', 'rm /nope.txt; rm -f /nope.txt; echo done'],
  ['mv file into dir', 'mv /README.md /docs/ && ls /docs && cat /docs/README.md'],
  ['mv rename dir', 'mv /docs /documents && ls /documents && ls /'],
  ['mv missing', 'mv /nope /x'],
  ['cp -r', 'cp -r /src /src2 && ls -R /src2 && cat /src2/lib/math.ts'],
  ['cp file', 'cp /docs/notes.txt /docs/copy.txt && cat /docs/copy.txt'],
  ['touch', 'touch /docs/new.txt && ls /docs && cat /docs/new.txt'],
  ['glob star', 'echo /src/*.ts /src/*.tsx'],
  ['globstar', 'shopt -s globstar; echo /src/**/*.ts'],
  ['du', 'du -a /src'],
  ['pipes', "cat /docs/guide.md | grep -v '^#' | sort -r | head -3"],
  ['dev null', 'echo hidden > /dev/null; cat /dev/null; echo visible'],
  ['which', 'which ls cat'],
  ['cd and relative', 'cd /src && cat lib/../index.ts && pwd'],
  ['xargs', "find /src -name '*.ts' | sort | xargs wc -l"],
  [
    'symlink',
    'ln -s /docs/guide.md /link.md && cat /link.md && ls -l /link.md | cut -c1 && readlink /link.md',
  ],
  ['chmod', 'chmod 600 /docs/notes.txt && ls -l /docs/notes.txt | cut -c1-10'],
  ['tree', 'tree /src'],
  ['stat printf', "find /src -type f -printf '%p %s\\n' | sort"],
]

describe('just-bash on YjsFileSystem prints what it prints on InMemoryFs', () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterAll(() => {
    vi.useRealTimers()
  })

  it.each(cases)('%s', async (_name, script) => {
    vi.setSystemTime(T0)
    const reference = new InMemoryFs()
    const yfs = createFileSystem()
    await populate(reference)
    const start = Date.now()
    await populate(yfs)
    vi.setSystemTime(start)
    const expected = await new Bash({ fs: reference, cwd: '/' }).exec(script)
    vi.setSystemTime(start)
    const actual = await new Bash({ fs: yfs, cwd: '/' }).exec(script)
    expect({ stdout: actual.stdout, stderr: actual.stderr, exitCode: actual.exitCode }).toEqual({
      stdout: expected.stdout,
      stderr: expected.stderr,
      exitCode: expected.exitCode,
    })
    // Guard against a vacuous pass: every script must have produced output or an error.
    expect(`${expected.stdout}${expected.stderr}`.length).toBeGreaterThan(0)
  })
})
