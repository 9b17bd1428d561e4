/**
 * The registry as OpenAI function calling: every listed tool is valid Chat Completions JSON
 * (its parameters a JSON Schema that ajv compiles), and tool calls in the shape a response
 * carries (`arguments` a JSON string) run on the workspace and come back as tool messages.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { setupTools } from '../testing/tool-harness.js'
import { executeOpenAiToolCall, toOpenAiTools } from './openai-tools.js'

describe('toOpenAiTools', () => {
  it('lists each tool as a function with the registry description and a compilable schema', () => {
    const { tools } = setupTools()
    const listed = toOpenAiTools(tools)
    // Round trip through JSON: what is sent is plain data.
    expect(JSON.parse(JSON.stringify(listed))).toEqual(listed)
    const ajv = new Ajv2020({ strict: false })
    for (const [i, t] of tools.list().entries()) {
      const entry = listed[i]!
      expect(entry.type).toBe('function')
      expect(entry.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      expect(entry.function.description).toBe(t.description)
      expect(entry.function.parameters).toMatchObject({ type: 'object' })
      expect(entry.function.parameters).not.toHaveProperty('$schema')
      ajv.compile(entry.function.parameters)
    }
  })

  it('executes tool calls as a response carries them and answers with tool messages', async () => {
    const { tools, fs } = setupTools()
    const response = JSON.parse(`{
      "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "write_file", "arguments": "{\\"path\\": \\"vfs:///a.txt\\", \\"content\\": \\"one\\\\ntwo\\\\n\\"}"}},
        {"id": "call_2", "type": "function",
         "function": {"name": "bash", "arguments": "{\\"script\\": \\"wc -l < /a.txt\\"}"}}
      ]
    }`)
    const messages = []
    for (const call of response.tool_calls) messages.push(await executeOpenAiToolCall(tools, call))
    expect(await fs.readFile('/a.txt')).toBe('one\ntwo\n')
    expect(messages[0]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    expect(messages[0]!.content).toContain('vfs:///a.txt')
    expect(messages[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_2' })
    expect(messages[1]!.content).toContain('2')
  })

  it('answers bad JSON, bad arguments and unknown tools with an error the model reads', async () => {
    const { tools } = setupTools()
    const run = (name: string, args: string) =>
      executeOpenAiToolCall(tools, { id: 'c', type: 'function', function: { name, arguments: args } })
    expect((await run('read_file', '{"path": ')).content).toMatch(/^arguments are not JSON/)
    expect((await run('read_file', '{"path": 3}')).content).toContain('invalid arguments')
    expect((await run('nope', '{}')).content).toContain("unknown tool 'nope'")
  })
})
