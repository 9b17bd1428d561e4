// Child process for the atomic-write test: overwrite argv[2] with argv[3] MiB of 'n' bytes, forever.
import { writeFileAtomic } from '../src/disk-writer.js'

const target = process.argv[2]!
const bytes = new Uint8Array(Number(process.argv[3]) * 1024 * 1024).fill(110)
process.stdout.write('started\n')
for (;;) await writeFileAtomic(target, bytes)
