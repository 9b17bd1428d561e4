export type { ErrnoCode } from './errors.js'
export { FsError, isFsError } from './errors.js'
