/**
 * The registry as AI SDK tools, driven by `generateText` with a mock language model that
 * calls a tool, reads the result, and answers: the model sees the same descriptions and
 * schemas as MCP clients, the tool runs on the workspace, and a failure reaches the model as
 * an error it can read.
 */
import { generateText, isStepCount } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { setupTools } from '../testing/tool-harness.js'
import { toAiSdkTools } from './ai-sdk-tools.js'

// The provider spec's types, reached through the mock (@ai-sdk/provider is not our dependency).
type LanguageModelV4CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0]
type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

const toolCall = (toolName: string, input: unknown): LanguageModelV4GenerateResult => ({
  content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
})

const answer = (text: string): LanguageModelV4GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
})

describe('toAiSdkTools', () => {
  it('offers every tool with the registry description and schema', () => {
    const { tools } = setupTools()
    const set = toAiSdkTools(tools)
    expect(Object.keys(set)).toEqual(tools.list().map((t) => t.name))
    const write = tools.list().find((t) => t.name === 'write_file')!
    expect(set.write_file!.description).toBe(write.description)
  })

  it('runs a tool call from generateText and hands the result back to the model', async () => {
    const { tools, fs } = setupTools()
    const calls: LanguageModelV4CallOptions[] = []
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        calls.push(options)
        return calls.length === 1
          ? toolCall('write_file', { path: 'vfs:///notes/todo.md', content: '# Todo\n' })
          : answer('done')
      },
    })
    const result = await generateText({
      model,
      tools: toAiSdkTools(tools),
      prompt: 'write a todo list',
      stopWhen: isStepCount(3),
    })
    expect(result.text).toBe('done')
    expect(await fs.readFile('/notes/todo.md')).toBe('# Todo\n')
    // The model was offered the registry's JSON Schema, and read the tool's text back.
    const offered = calls[0]!.tools!.find((t) => t.name === 'write_file') as { inputSchema: unknown }
    expect(offered.inputSchema).toEqual(tools.list().find((t) => t.name === 'write_file')!.inputSchema)
    const toolMessage = calls[1]!.prompt.find((m) => m.role === 'tool')!
    expect(JSON.stringify(toolMessage.content)).toContain('vfs:///notes/todo.md')
    expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({
      structuredContent: { path: 'vfs:///notes/todo.md', size: 7 },
    })
  })

  it('a failed call reaches the model as an error text it can correct', async () => {
    const { tools } = setupTools()
    const calls: LanguageModelV4CallOptions[] = []
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        calls.push(options)
        return calls.length === 1 ? toolCall('read_file', { path: 'vfs:///missing.txt' }) : answer('sorry')
      },
    })
    await generateText({ model, tools: toAiSdkTools(tools), prompt: 'read it', stopWhen: isStepCount(3) })
    const toolMessage = calls[1]!.prompt.find((m) => m.role === 'tool')!
    const part = toolMessage.content[0] as { output: { type: string; value: string } }
    expect(part.output.type).toBe('error-text')
    expect(part.output.value).toContain("ENOENT: no such file or directory, open 'vfs:///missing.txt'")
  })
})
