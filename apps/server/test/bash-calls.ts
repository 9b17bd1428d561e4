/**
 * Random bash calls for the sequence properties (bash-sequences, mcp-bash-sequences): a few
 * commands agents use on four files, in calls of up to three commands, each followed by a pause.
 */

import { isFsError } from '@yfs/core'
import fc from 'fast-check'
import { Bash, type IFileSystem } from 'just-bash'

/**
 * Four files, two in a folder made first (`/d`: just-bash's InMemoryFs creates missing folders
 * where POSIX refuses), of both kinds: moves between them convert the content (`.md` is rich
 * text), which once left the old kind's copy behind to come back when the file was emptied.
 * Every peer has the Markdown codec.
 */
export const FILES = ['/f.txt', '/g.md', '/d/h.md', '/d/k.txt']
const file = fc.constantFrom(...FILES)
// No empty word: `echo '' > f.md` is an empty paragraph, which Markdown reads back as ''.
const word = fc.constantFrom('alpha', 'beta', 'gamma', 'é')
const command = fc.oneof(
  fc.tuple(word, file).map(([w, f]) => `echo ${w} > ${f}`),
  fc.tuple(word, file).map(([w, f]) => `echo ${w} >> ${f}`),
  fc.tuple(word, word, file).map(([a, b, f]) => `sed -i 's/${a || 'x'}/${b}/' ${f}`),
  file.map((f) => `cat ${f}`),
  file.map((f) => `: > ${f}`),
  file.map((f) => `rm ${f}`),
  fc.tuple(file, file).map(([a, b]) => `mv ${a} ${b}`),
  fc.tuple(file, file).map(([a, b]) => `cp ${a} ${b}`),
  fc.tuple(file, file).map(([a, b]) => `cat ${a} > ${b}`),
  fc.tuple(file, file).map(([a, b]) => `cat ${a} >> ${b}`),
  fc.tuple(word, file).map(([w, f]) => `printf '%s\\n' ${w} one two | tee ${f}`),
  file.map((f) => `wc -c ${f}`),
  file.map((f) => `sort -r ${f} -o ${f}`),
  // Bytes that are not text (the same size as 'beta\n': a cached text once hid them).
  file.map((f) => `printf 'a\\000b\\377' > ${f}`),
  file.map((f) => `printf '\\001\\002' >> ${f}`),
  fc.tuple(file, file).map(([a, b]) => `head -c 3 ${a} > ${b}`),
  fc.tuple(file, file).map(([a, b]) => `tr a-z A-Z < ${a} > ${b}`),
  file.map((f) => `touch ${f}`),
  file.map((f) => `od -c ${f} | head -3`),
  // The folder moved away and back, emptied and copied back.
  fc.constantFrom('mv /d /e; mv /e /d', 'rm -r /d; mkdir /d', 'cp -r /d /e; rm -r /d; mv /e /d'),
)
export const call = fc.record({
  script: fc.array(command, { minLength: 1, maxLength: 3 }).map((c) => c.join('; ')),
  pause: fc.integer({ min: 0, max: 6 }),
})

/** Each file's bytes (as text when they are UTF-8, else hex), or '-' when it cannot be read. */
export async function contents(fs: IFileSystem): Promise<string[]> {
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const show = (bytes: Uint8Array) => {
    try {
      return JSON.stringify(utf8.decode(bytes))
    } catch {
      return `hex ${Buffer.from(bytes).toString('hex')}`
    }
  }
  return Promise.all(FILES.map(async (f) => `${f}: ${await fs.readFileBuffer(f).then(show, () => '-')}`))
}

/**
 * Run `script` on `fs` while another peer changes the same tree: a redirect into a folder the
 * other peer just moved or removed rejects the whole exec (just-bash lets a failed redirect write
 * escape), so the script ends there. Any other rejection still fails the caller.
 */
export async function execBesideAnother(fs: IFileSystem, script: string): Promise<void> {
  try {
    await new Bash({ fs, cwd: '/' }).exec(script)
  } catch (error) {
    if (!isFsError(error)) throw error
  }
}
