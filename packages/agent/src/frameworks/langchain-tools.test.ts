/**
 * The registry as LangChain tools, called through `.invoke`: with plain arguments (the text),
 * and with a tool call as a chat model emits it (a ToolMessage with the structured result as
 * its artifact). LangChain validates the arguments against the registry's JSON Schema first.
 */
import { ToolMessage } from '@langchain/core/messages'
import { describe, expect, it } from 'vitest'
import { setupTools } from '../testing/tool-harness.js'
import { toLangChainTools } from './langchain-tools.js'

describe('toLangChainTools', () => {
  it('has every tool with the registry name and description', () => {
    const { tools } = setupTools()
    const lc = toLangChainTools(tools)
    expect(lc.map((t) => [t.name, t.description])).toEqual(tools.list().map((t) => [t.name, t.description]))
  })

  it('runs tools through invoke, with arguments and with a tool call', async () => {
    const { tools, fs } = setupTools()
    const byName = new Map(toLangChainTools(tools).map((t) => [t.name, t]))
    const text = await byName.get('write_file')!.invoke({ path: 'vfs:///lc.md', content: '# hi\n' })
    expect(text).toContain('vfs:///lc.md')
    expect(await fs.readFile('/lc.md')).toBe('# hi\n')
    const message = await byName
      .get('read_file')!
      .invoke({ type: 'tool_call', id: 'call_7', name: 'read_file', args: { path: 'vfs:///lc.md' } })
    expect(message).toBeInstanceOf(ToolMessage)
    expect(message.tool_call_id).toBe('call_7')
    expect(message.content).toBe('1\t# hi')
    expect(message.artifact).toMatchObject({ path: 'vfs:///lc.md', content: '# hi' })
  })

  it('returns a failure as text the model reads, and refuses arguments the schema rejects', async () => {
    const { tools } = setupTools()
    const read = toLangChainTools(tools).find((t) => t.name === 'read_file')!
    expect(await read.invoke({ path: 'vfs:///missing' })).toContain('ENOENT')
    await expect(read.invoke({ path: 3 })).rejects.toThrow()
  })
})
