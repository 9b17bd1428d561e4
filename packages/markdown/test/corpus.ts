/**
 * The fidelity corpus: every README.md and CHANGELOG.md in the project's
 * `node_modules` (pnpm's store under `node_modules/.pnpm`, symlinks not
 * followed, identical texts once), the project's own Markdown (README files
 * and `docs/`), and the hand-written cases in `test/corpus/`.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const CORPUS_NAME = /^(readme|changelog)\.md$/i

function walk(
  dir: string,
  keep: (name: string) => boolean,
  out: string[],
  skip?: (name: string) => boolean,
): void {
  let entries: import('node:fs').Dirent[]
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch (e) {
    // A folder that vanished or is unreadable is simply not part of the corpus.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EACCES')
      return
    throw e
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!skip?.(entry.name)) walk(path, keep, out, skip)
    } else if (entry.isFile() && keep(entry.name)) out.push(path)
  }
}

/** One corpus document: where it came from and its text. */
export interface CorpusDoc {
  name: string
  text: string
}

/** Every corpus document, sorted by name, each distinct text once. */
export function loadCorpus(): CorpusDoc[] {
  const paths: string[] = []
  walk(join(ROOT, 'node_modules/.pnpm'), (n) => CORPUS_NAME.test(n), paths)
  walk(join(ROOT, 'docs'), (n) => n.endsWith('.md'), paths)
  for (const top of ['packages', 'apps']) {
    walk(
      join(ROOT, top),
      (n) => n.endsWith('.md'),
      paths,
      (n) => n === 'node_modules' || n === 'dist' || n === '.yfs',
    )
  }
  paths.push(join(ROOT, 'README.md'))
  const seen = new Set<string>()
  const docs: CorpusDoc[] = []
  for (const path of paths.sort()) {
    const text = readFileSync(path, 'utf8')
    const hash = createHash('sha1').update(text).digest('hex')
    if (seen.has(hash)) continue
    seen.add(hash)
    docs.push({
      name: relative(ROOT, path).replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, 'node_modules/'),
      text,
    })
  }
  return docs
}
