/**
 * Path globs for search filters: `*` (within a name), `**` (any folders),
 * `?`, `[abc]`, `{a,b}`. Matched against the path without its leading `/`;
 * a glob without `/` matches a name at any depth (`*.md` is `** /*.md`), as
 * ripgrep's `-g` and grep's `--include` do.
 *
 * Not here: reading folders (the caller has the paths).
 */

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c
}

function globSource(glob: string): string {
  let out = ''
  let braces = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++
        if (glob[i + 1] === '/') {
          i++
          out += '(?:.*/)?'
        } else out += '.*'
      } else out += '[^/]*'
    } else if (c === '?') out += '[^/]'
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end < 0) out += '\\['
      else {
        let body = glob.slice(i + 1, end).replace(/\\/g, '\\\\')
        if (body.startsWith('!')) body = `^${body.slice(1)}`
        out += `[${body}]`
        i = end
      }
    } else if (c === '{') {
      braces++
      out += '(?:'
    } else if (c === '}' && braces > 0) {
      braces--
      out += ')'
    } else if (c === ',' && braces > 0) out += '|'
    else if (c === '\\' && i + 1 < glob.length) out += escapeRe(glob[++i]!)
    else out += escapeRe(c)
  }
  return out + ')'.repeat(braces)
}

/** A predicate on absolute paths for `glob` (see the module comment). */
export function globMatcher(glob: string): (path: string) => boolean {
  const trimmed = glob.replace(/^\/+/, '')
  const anchored = trimmed.includes('/')
  const re = new RegExp(`^${anchored ? '' : '(?:.*/)?'}${globSource(trimmed)}$`, 'u')
  return (path) => re.test(path.replace(/^\/+/, ''))
}

/** A predicate for include and exclude globs: some include matches (when any), no exclude does. */
export function pathFilter(
  include: readonly string[] = [],
  exclude: readonly string[] = [],
): (path: string) => boolean {
  const inc = include.map(globMatcher)
  const exc = exclude.map(globMatcher)
  return (path) => (inc.length === 0 || inc.some((m) => m(path))) && !exc.some((m) => m(path))
}
