/**
 * The tool registry as LangChain tools (`@langchain/core` 1.x, an optional
 * peer dependency: import from `@yfs/agent/langchain`): one `tool()` (a
 * `DynamicStructuredTool`) per tool, its name, description and JSON Schema
 * taken from the registry's definitions (the ones MCP lists).
 *
 * Each returns `content_and_artifact`: the text the model reads (the
 * Node-style error and a hint when the call failed, so it can correct
 * itself), and the structured result as the ToolMessage's artifact.
 *
 * @example
 * const tools = toLangChainTools(createToolRegistry(fs))
 * const agent = createAgent({ model, tools })
 */
import { type DynamicStructuredTool, tool } from '@langchain/core/tools'
import type { ToolRegistry } from '../registry.js'

/** Every tool of `registry` as a LangChain tool. */
export function toLangChainTools(registry: ToolRegistry): DynamicStructuredTool[] {
  return registry.list().map((definition) =>
    tool(
      async (input: unknown) => {
        const result = await registry.execute(definition.name, input)
        return [result.content.map((c) => c.text).join('\n'), result.structuredContent]
      },
      {
        name: definition.name,
        description: definition.description,
        schema: definition.inputSchema,
        responseFormat: 'content_and_artifact',
      },
    ),
  )
}
