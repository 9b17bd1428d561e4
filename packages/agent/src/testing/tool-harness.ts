/**
 * Test harness for the tools: a real YjsFileSystem (with the markdown codec,
 * as the MCP server uses) and a registry on it, plus `ok`/`err` helpers that
 * fail loudly on the wrong outcome. Used by the tests beside each tool.
 */
import { createFileSystem, type YjsFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { expect } from 'vitest'
import { createToolRegistry, type ToolRegistryOptions } from '../registry.js'
import type { ToolResult } from '../tool.js'

/** The `error` of a failed tool call's structured result. */
export interface ToolErrorInfo {
  code: string
  message: string
  path?: string
  hint?: string
}

/** A registry on an existing filesystem (for a second registry with other options). */
export const toolsOn = (fs: YjsFileSystem, options: ToolRegistryOptions = {}) =>
  createToolRegistry(fs, options)

/** A fresh workspace, its registry, and call helpers. */
export function setupTools(options: ToolRegistryOptions = {}) {
  const fs = createFileSystem({ codecs: [markdownCodec] })
  const tools = createToolRegistry(fs, options)
  const call = async (name: string, args: unknown): Promise<ToolResult> => tools.execute(name, args)
  /** Call and return the result; throws with the tool's message when it failed. */
  const ok = async (name: string, args: unknown) => {
    const r = await call(name, args)
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]!.text}`)
    return r
  }
  /** Call, expect a failure, and return its error. */
  const err = async (name: string, args: unknown) => {
    const r = await call(name, args)
    expect(r.isError).toBe(true)
    return r.structuredContent.error as ToolErrorInfo
  }
  return { fs, tools, call, ok, err }
}
