/** Node's errno codes as the daemon reads them. */

/** True for a permission error (the entry is there, but this process may not read it). */
export function isDenied(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'EACCES' || code === 'EPERM'
}
