// Build a workspace, write files through just-bash and search them with grep and find.
import { Bash } from 'just-bash'
import { createFileSystem } from '../src/index.js'

const fs = createFileSystem()
const bash = new Bash({ fs, cwd: '/' })

const script = `
mkdir -p /src/lib /docs
echo 'export const answer = 42 // TODO: explain' > /src/lib/answer.ts
printf 'import { answer } from "./lib/answer"\\nconsole.log(answer)\\n' > /src/main.ts
echo '# Notes' > /docs/notes.md
echo '- TODO: write the guide' >> /docs/notes.md
echo '--- grep -rn TODO /'
grep -rn TODO /src /docs
echo '--- find / -name "*.ts"'
find /src -name '*.ts' | sort
echo '--- ls -la /src'
ls -la /src | awk '{print $1, $NF}'
echo '--- wc -l'
cat /src/main.ts /docs/notes.md | wc -l
`
const result = await bash.exec(script)
process.stdout.write(result.stdout)
process.stderr.write(result.stderr)
console.log(`--- ${fs.index.nodeCount} rows in the files table`)
process.exitCode = result.exitCode
