/**
 * The tool registry as OpenAI function calling: `toOpenAiTools` lists each
 * tool as `{ type: 'function', function: { name, description, parameters } }`
 * (Chat Completions `tools`), from the same definitions MCP lists, and
 * `executeOpenAiToolCall` runs one `tool_calls[i]` of a response and returns
 * the `role: 'tool'` message to send back. No dependency on an OpenAI SDK:
 * plain JSON in, plain JSON out.
 *
 * A failed call is a message too (the Node-style error and a hint), so the
 * model can correct itself; so are arguments that are not JSON.
 *
 * @example
 * const tools = createToolRegistry(fs)
 * const response = await openai.chat.completions.create({ model, messages, tools: toOpenAiTools(tools) })
 * for (const call of response.choices[0].message.tool_calls ?? [])
 *   messages.push(await executeOpenAiToolCall(tools, call))
 */
import { errorResult } from '../errors.js'
import type { ToolRegistry } from '../registry.js'
import type { ToolResult } from '../tool.js'
import { ToolError } from '../tool-error.js'

/** One entry of Chat Completions' `tools`. */
export interface OpenAiFunctionTool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

/** A `tool_calls[i]` of a Chat Completions response: `arguments` is a JSON string. */
export interface OpenAiToolCall {
  id: string
  type?: 'function'
  function: { name: string; arguments: string }
}

/** The message answering a tool call. */
export interface OpenAiToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/** Every tool of `registry` as an OpenAI function tool (JSON Schema parameters, no `$schema` key). */
export function toOpenAiTools(registry: ToolRegistry): OpenAiFunctionTool[] {
  return registry.list().map((t) => {
    // OpenAI takes a JSON Schema subset; the dialect marker is noise to it.
    const { $schema: _dialect, ...parameters } = t.inputSchema
    return { type: 'function', function: { name: t.name, description: t.description, parameters } }
  })
}

/** Run a call given as a tool name and its JSON arguments (what any function-calling API returns). */
export async function callWithJsonArguments(
  registry: ToolRegistry,
  name: string,
  argumentsJson: string,
): Promise<ToolResult> {
  let args: unknown
  try {
    args = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson)
  } catch (error) {
    return errorResult(new ToolError('EINVAL', `arguments are not JSON: ${(error as Error).message}`))
  }
  return registry.execute(name, args)
}

/** Run one tool call of a response; the tool message holds the text the model reads. */
export async function executeOpenAiToolCall(
  registry: ToolRegistry,
  call: OpenAiToolCall,
): Promise<OpenAiToolMessage> {
  const result = await callWithJsonArguments(registry, call.function.name, call.function.arguments)
  return { role: 'tool', tool_call_id: call.id, content: result.content.map((c) => c.text).join('\n') }
}
