/**
 * The tool registry as an AI SDK `ToolSet` (`ai` 7, an optional peer
 * dependency: import from `@yfs/agent/ai-sdk`): one `dynamicTool` per tool,
 * its description and JSON Schema taken from the registry's definitions (the
 * ones MCP lists), its `execute` the registry's. The registry validates the
 * input, as it does for MCP.
 *
 * A tool's output is the registry's result (`content`, `structuredContent`,
 * `isError`) for the application; the model reads its text, as an
 * `error-text` output when the call failed, so it can correct itself.
 *
 * @example
 * const result = await generateText({ model, tools: toAiSdkTools(createToolRegistry(fs)), prompt })
 */
import { dynamicTool, type JSONSchema7, jsonSchema, type ToolSet } from 'ai'
import type { ToolRegistry } from '../registry.js'
import type { ToolResult } from '../tool.js'

/** Every tool of `registry` as an AI SDK tool, keyed by name. */
export function toAiSdkTools(registry: ToolRegistry): ToolSet {
  const set: ToolSet = {}
  for (const definition of registry.list()) {
    set[definition.name] = dynamicTool({
      title: definition.title,
      description: definition.description,
      // The registry's schema is JSON Schema 2020-12 from arktype; JSONSchema7 is the SDK's type for any.
      inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
      execute: (input) => registry.execute(definition.name, input),
      toModelOutput: ({ output }) => {
        const result = output as ToolResult
        const text = result.content.map((c) => c.text).join('\n')
        return result.isError ? { type: 'error-text', value: text } : { type: 'text', value: text }
      },
    })
  }
  return set
}
