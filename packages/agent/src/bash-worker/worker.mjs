// Worker entry: registers tsx in this thread (the workspace ships TypeScript sources), then runs worker.ts.
import { register } from 'tsx/esm/api'

register()
await import('./worker.ts')
