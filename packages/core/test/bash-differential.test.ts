/**
 * Differential test: the same just-bash scripts on just-bash's InMemoryFs
 * (the reference) and on YjsFileSystem must print the same stdout, stderr
 * and exit code: basic commands, then scripts as agents write them (scratch
 * files under /tmp, xargs, find -exec, tar, diff -u, binary pipes, here-docs,
 * strict-mode failures). Dates are frozen so `ls -l` columns match, and the fixture
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

/** Scripts the way agents write them: scratch files under /tmp, pipelines, archives, strict mode. */
const agentCases: [string, string][] = [
  ['tmp scratch file', 'grep -rn TODO /src > /tmp/todos.txt; wc -l < /tmp/todos.txt; sort -r /tmp/todos.txt'],
  [
    'tmp scratch folder',
    'mkdir -p /tmp/work/out && cp /src/lib/*.ts /tmp/work/ && ls /tmp/work && rm -rf /tmp/work && ls /tmp',
  ],
  ['awk into tmp', `awk '{ print > "/tmp/awk.out" }' /docs/guide.md && cat /tmp/awk.out | wc -l`],
  [
    'awk split by key',
    `printf 'a 1\nb 2\na 3\n' | awk '{ print $2 > ("/tmp/key_" $1) }' && cat /tmp/key_a /tmp/key_b`,
  ],
  ['split into tmp', 'split -l 2 /docs/guide.md /tmp/part_ && ls /tmp && cat /tmp/part_ab'],
  [
    'mv result out of tmp',
    'sort /docs/notes.txt > /tmp/sorted && mv /tmp/sorted /docs/sorted.txt && cat /docs/sorted.txt && ls /tmp',
  ],
  ['xargs grep', "find /src -name '*.ts' | sort | xargs grep -l TODO"],
  ['xargs -n1', "ls /docs | sed 's|^|/docs/|' | xargs -n1 head -1"],
  ['find -exec', "find /src -name '*.ts' -exec wc -c {} \\; | sort"],
  ['find -exec +', 'find /docs -type f -exec grep -c a {} + | sort'],
  ['find -delete', "find /src -name '*.tsx' -delete && find /src -type f | sort"],
  [
    'tar round trip',
    'cd / && tar cf /tmp/src.tar src && mkdir /tmp/x && tar xf /tmp/src.tar -C /tmp/x && diff /src/lib/math.ts /tmp/x/src/lib/math.ts && find /tmp/x | sort',
  ],
  [
    'tar gz binary',
    "printf '\\x00\\x01\\xff\\xfe' > /data/blob.bin && tar czf /tmp/d.tgz -C / data && mkdir /tmp/y && tar xzf /tmp/d.tgz -C /tmp/y && od -An -tx1 /tmp/y/data/blob.bin && tar tzf /tmp/d.tgz | sort",
  ],
  [
    'gzip pipe',
    'cat /docs/guide.md | gzip > /tmp/g.gz && gzip -dc /tmp/g.gz | head -2 && rg -z alpha /tmp/g.gz',
  ],
  [
    'diff -u',
    "sed 's/beta/BETA/' /docs/guide.md > /tmp/guide.new; diff -u /docs/guide.md /tmp/guide.new; echo exit=$?",
  ],
  ['diff missing', 'diff /docs/guide.md /tmp/nope; echo exit=$?'],
  ['binary pipe', "printf '\\x00\\xff\\x10' | od -An -tx1; head -c 4 /data/big.txt | od -c"],
  [
    'base64 round trip',
    'base64 /src/app.tsx > /tmp/b64 && base64 -d /tmp/b64 > /tmp/app.tsx && diff /src/app.tsx /tmp/app.tsx && echo same',
  ],
  [
    'sort -u | uniq -c',
    "cat /src/*.ts /src/lib/*.ts | tr -s ' ' '\\n' | sort | uniq -c | sort -rn | head -5",
  ],
  ['sort -u', "grep -rho 'TODO[: ]*[a-z0-9]*' /src /docs | sort -u"],
  [
    'here-doc to file',
    'cat > /tmp/config.json <<\'EOF\'\n{"name": "x", "n": 2}\nEOF\njq -r .name /tmp/config.json && cat /tmp/config.json',
  ],
  [
    'here-doc expanding',
    'name=world\ncat <<EOF > /docs/hello.txt\nhello $name\n$(echo sub)\nEOF\ncat /docs/hello.txt',
  ],
  ['set -e failure', 'set -euo pipefail\necho start\ncat /missing.txt\necho never'],
  ['pipefail failure', 'set -o pipefail; cat /missing | sort; echo "exit=$?"'],
  ['set -u failure', 'set -u; echo "$UNSET_VAR"; echo never'],
  ['errexit in subshell', 'set -e; (false) || echo recovered; false; echo never'],
  [
    'scratch dir by pid',
    'set -e; tmp=/tmp/scratch.$$; mkdir $tmp; echo x > $tmp/f; cat $tmp/f; rm -r $tmp; ls /tmp | wc -l',
  ],
  ['while read loop', 'find /src -type f | sort | while read -r f; do echo "$(wc -l < $f) $f"; done'],
  ['sed -n and tee into tmp', "sed -n '2,4p' /docs/guide.md | tee /tmp/mid.txt | wc -l; cat /tmp/mid.txt"],
  ['cut paste join', 'cut -c1-6 /docs/notes.txt > /tmp/a; paste -d: /tmp/a /docs/notes.txt'],
  ['mkdir in missing tmp parent', 'mkdir /tmp/a/b; echo $?; mkdir -p /tmp/a/b && ls -d /tmp/a/b'],
  ['ls -la tmp', 'touch /tmp/t1 && ls -a /tmp && test -d /tmp && echo dir'],
  ['rm -rf glob in tmp', 'touch /tmp/1 /tmp/2 && mkdir /tmp/d && rm -rf /tmp/* && ls -A /tmp | wc -l'],
  [
    'cp -r dir into tmp and back',
    'cp -r /docs /tmp/docs && echo more >> /tmp/docs/notes.txt && cp /tmp/docs/notes.txt /docs/notes2.txt && tail -1 /docs/notes2.txt',
  ],
  ['wc of stdin from file', 'wc -w < /docs/guide.md; wc -c < /data/big.txt'],
  ['printf to file and append', "printf '%s\\n' a b c > /tmp/l && printf 'd\\n' >> /tmp/l && tac /tmp/l"],
  ['command substitution loop', 'for f in $(ls /src/lib); do echo "$f: $(head -c 20 /src/lib/$f)"; done'],
  ['grep -c exit codes', 'grep -q nomatch /docs/notes.txt; echo $?; grep -q TODO /docs/notes.txt; echo $?'],
  ['jq on generated json', 'echo \'[{"a":1},{"a":2}]\' > /tmp/j.json && jq \'[.[].a] | add\' /tmp/j.json'],
]

describe('just-bash on YjsFileSystem prints what it prints on InMemoryFs', () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterAll(() => {
    vi.useRealTimers()
  })

  it.each([...cases, ...agentCases])('%s', async (_name, script) => {
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

/**
 * The documented differences (yjs-file-system.ts header): here the outputs differ on
 * purpose, so each script pins what YjsFileSystem prints and checks that InMemoryFs
 * prints something else.
 */
const differences: [string, string, { stdout: string; stderr: string; exitCode: number }][] = [
  [
    'writing into a missing folder is ENOENT (InMemoryFs creates it)',
    'sort -o /nodir/out.txt /docs/notes.txt; echo $?; ls /nodir',
    {
      stdout: '1\n',
      stderr:
        "sort: ENOENT: no such file or directory, write '/nodir/out.txt'\nls: /nodir: No such file or directory\n",
      exitCode: 2,
    },
  ],
  [
    'hard links are ENOSYS',
    'ln /docs/notes.txt /docs/hard.txt; echo $?',
    {
      stdout: '1\n',
      stderr: "ln: ENOSYS: hard links are not supported, link '/docs/notes.txt'\n",
      exitCode: 0,
    },
  ],
  [
    'names cannot contain a backslash',
    "touch '/docs/a\\b'; echo $?; ls /docs",
    {
      stdout: '1\nguide.md\nnotes.txt\n',
      stderr:
        "touch: cannot touch '/docs/a\\b': EINVAL: file names cannot contain /, \\ or NUL, write '/docs/a\\b'\n",
      exitCode: 0,
    },
  ],
]

describe('documented differences from InMemoryFs', () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
  })
  afterAll(() => {
    vi.useRealTimers()
  })

  it.each(differences)('%s', async (_name, script, expected) => {
    vi.setSystemTime(T0)
    const reference = new InMemoryFs()
    const yfs = createFileSystem()
    await populate(reference)
    await populate(yfs)
    const onReference = await new Bash({ fs: reference, cwd: '/' }).exec(script)
    const actual = await new Bash({ fs: yfs, cwd: '/' }).exec(script)
    expect({ stdout: actual.stdout, stderr: actual.stderr, exitCode: actual.exitCode }).toEqual(expected)
    expect({ stdout: onReference.stdout, stderr: onReference.stderr }).not.toEqual({
      stdout: expected.stdout,
      stderr: expected.stderr,
    })
  })
})
