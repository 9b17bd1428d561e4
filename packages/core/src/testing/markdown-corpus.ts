/**
 * A generated, realistic Markdown corpus for search benchmarks: notes with
 * headings, prose from a Zipf-distributed vocabulary (common English words and
 * invented terms), lists, links, code blocks, dates and ticket ids. Seeded, so
 * every run searches the same files; a few marker words are planted in known
 * files (`rare`: in 3 files).
 */
import * as prng from 'lib0/prng'

/** One generated file. */
export interface CorpusFile {
  path: string
  text: string
}

const COMMON = (
  'the of and to in a is that for it as with was on be by this are or from at which an have not but all ' +
  'they one their has more can will there been if when were what would about other into also these its ' +
  'some than then them only may new time two first used system data file files search index server client ' +
  'agent workspace document update change version error code test value user should each where between'
).split(' ')

function inventedWords(gen: prng.PRNG, count: number): string[] {
  const onsets = [
    'b',
    'c',
    'd',
    'f',
    'g',
    'k',
    'l',
    'm',
    'n',
    'p',
    'r',
    's',
    't',
    'v',
    'tr',
    'st',
    'pl',
    'gr',
  ]
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea']
  const codas = ['', 'n', 'r', 's', 't', 'l', 'nd', 'st', 'ck']
  const words = new Set<string>()
  while (words.size < count) {
    let w = ''
    for (let s = prng.int32(gen, 1, 3); s > 0; s--)
      w += prng.oneOf(gen, onsets) + prng.oneOf(gen, vowels) + prng.oneOf(gen, codas)
    words.add(w)
  }
  return [...words]
}

/**
 * `files` Markdown files of about `bytes / files` bytes each under `/notes/<topic>/`,
 * generated from `seed`. The word `quasarflux` appears in exactly 3 files.
 */
export function markdownCorpus(files = 4000, bytes = 31.5 * 1024 * 1024, seed = 42): CorpusFile[] {
  const gen = prng.create(seed)
  const vocab = [...COMMON, ...inventedWords(gen, 6000)]
  // Zipf: word k is picked with weight 1 / (k + 1).
  const weights = vocab.map((_, k) => 1 / (k + 1))
  const cumulative: number[] = []
  let total = 0
  for (const w of weights) {
    total += w
    cumulative.push(total)
  }
  const word = () => {
    const x = prng.real53(gen) * total
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return vocab[lo]!
  }
  const sentence = () => {
    const n = prng.int32(gen, 6, 18)
    const words = Array.from({ length: n }, word)
    const s = words.join(' ')
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`
  }
  const topics = Array.from({ length: 40 }, (_, k) => `${vocab[COMMON.length + k]}`)
  const perFile = bytes / files
  const out: CorpusFile[] = []
  for (let i = 0; i < files; i++) {
    const topic = topics[i % topics.length]!
    const lines = [
      `# ${sentence().slice(0, -1)}`,
      '',
      `Tags: #${word()} #${word()} · updated 2026-${(i % 12) + 1}-${(i % 28) + 1}`,
      '',
    ]
    let size = lines.join('\n').length
    while (size < perFile) {
      const kind = prng.int32(gen, 0, 9)
      let block: string
      if (kind === 0) block = `## ${sentence().slice(0, -1)}`
      else if (kind === 1)
        block = Array.from({ length: prng.int32(gen, 2, 5) }, () => `- ${sentence()}`).join('\n')
      else if (kind === 2)
        block = `\`\`\`ts\nfunction ${word()}${prng.int32(gen, 0, 99)}(value: number) {\n  return value * ${prng.int32(gen, 2, 9)} // TODO ${word()}\n}\n\`\`\``
      else if (kind === 3)
        block = `See [${word()} ${word()}](../${topics[prng.int32(gen, 0, topics.length - 1)]}/note-${prng.int32(gen, 0, files - 1)}.md) and ticket YFS-${prng.int32(gen, 100, 9999)}.`
      else block = Array.from({ length: prng.int32(gen, 2, 6) }, sentence).join(' ')
      lines.push(block, '')
      size += block.length + 2
    }
    if (i === 17 || i === 1717 || i === files - 5)
      lines.push('The quasarflux regulator needs a new seal.', '')
    out.push({ path: `/notes/${topic}/note-${i}.md`, text: lines.join('\n') })
  }
  return out
}
