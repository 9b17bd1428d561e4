// Child process for the atomic-write tests: overwrite files with MiB of 'n' bytes, forever.
//   write-killer.ts <file> <MiB>                  one file, writeFileAtomic
//   write-killer.ts --batch <dir> <count> <MiB>   f0.txt … f<count-1>.txt in <dir>, writeFilesAtomic
import { join } from 'node:path'
import { writeFileAtomic, writeFilesAtomic } from '../src/disk-writer.js'

const args = process.argv.slice(2)
const batch = args[0] === '--batch'
const mib = Number(batch ? args[3] : args[1])
const bytes = new Uint8Array(mib * 1024 * 1024).fill(110)
process.stdout.write('started\n')
if (batch) {
  const files = Array.from({ length: Number(args[2]) }, (_, i) => ({
    host: join(args[1]!, `f${i}.txt`),
    bytes,
  }))
  for (;;) await writeFilesAtomic(files)
} else for (;;) await writeFileAtomic(args[0]!, bytes)
