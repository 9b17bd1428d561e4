/**
 * Run the `yfs` program in this process, as a test: its stdout and stderr
 * (bytes decoded as UTF-8) and its exit code, with process.exitCode restored.
 */
import { vi } from 'vitest'
import { createProgram } from '../src/cli.js'

const text = (chunk: unknown) =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')

export async function yfs(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = ''
  let err = ''
  const spyOut = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += text(chunk)
    return true
  })
  const spyErr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += text(chunk)
    return true
  })
  const before = process.exitCode
  try {
    await createProgram()
      .exitOverride()
      .parseAsync(['node', 'yfs', ...args])
    return { out, err, code: Number(process.exitCode ?? 0) }
  } finally {
    spyOut.mockRestore()
    spyErr.mockRestore()
    process.exitCode = before
  }
}
