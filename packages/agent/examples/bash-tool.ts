/**
 * Vercel's bash-tool (`createBashTool`, the AI SDK's bash tool) on a yfs
 * workspace: a just-bash `Bash` on a `YjsFileSystem` is its sandbox, so every
 * file the agent's commands write is a yfs file, with history, that people
 * and other agents can open live (connect the filesystem to a sync server with
 * `@yfs/client`'s `connectWorkspace` and pass `ws.fs` instead).
 *
 * Run it (from packages/agent):
 *
 *   npx tsx examples/bash-tool.ts
 *
 * Without a model configured, a scripted model plays the agent's part (the
 * tool calls a model would make), so the example runs offline. With a real
 * one, through the Vercel AI Gateway:
 *
 *   AI_GATEWAY_API_KEY=… YFS_EXAMPLE_MODEL=openai/gpt-5-mini npx tsx examples/bash-tool.ts
 */
import { pathToFileURL } from 'node:url'
import { createFileSystem, type YjsFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { generateText, isStepCount, type LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { createBashTool } from 'bash-tool'
import { Bash } from 'just-bash'

const PROMPT =
  'In notes.md, mark the "write the docs" item done (change "- [ ]" to "- [x]"), then print the file.'

/**
 * Run the agent on a fresh workspace holding `/workspace/notes.md` and return its answer and
 * the workspace (the caller owns it: `fs.destroy()` when done).
 */
export async function runBashToolExample(model: LanguageModel = scriptedModel()) {
  const fs = createFileSystem({ codecs: [markdownCodec], author: 'agent' })
  await fs.mkdir('/workspace')
  await fs.writeFile('/workspace/notes.md', '# Notes\n\n- [ ] write the docs\n- [ ] ship\n')

  // The sandbox is just-bash on the yfs filesystem; bash-tool adds its prompt and file tools.
  const { tools } = await createBashTool({
    sandbox: new Bash({ fs, cwd: '/workspace' }),
    destination: '/workspace',
  })
  const result = await generateText({ model, tools, prompt: PROMPT, stopWhen: isStepCount(5) })
  return { text: result.text, steps: result.steps.length, fs }
}

/** A model that makes the calls a real one would: edit with sed, print, answer. */
function scriptedModel(): LanguageModel {
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 0, text: 0, reasoning: undefined },
  }
  const bash = (command: string, step: number) => ({
    content: [
      {
        type: 'tool-call' as const,
        toolCallId: `call-${step}`,
        toolName: 'bash',
        input: JSON.stringify({ command }),
      },
    ],
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
    usage,
    warnings: [],
  })
  const replies = [
    bash("sed -i 's/- \\[ \\] write the docs/- [x] write the docs/' notes.md", 1),
    bash('cat notes.md', 2),
    {
      content: [{ type: 'text' as const, text: 'Done: "write the docs" is checked in notes.md.' }],
      finishReason: { unified: 'stop' as const, raw: undefined },
      usage,
      warnings: [],
    },
  ]
  return new MockLanguageModelV4({ doGenerate: replies })
}

async function main(): Promise<void> {
  const modelId = process.env.YFS_EXAMPLE_MODEL || undefined
  // A plain model id string goes through the AI Gateway (AI_GATEWAY_API_KEY).
  const { text, steps, fs } = await runBashToolExample(modelId ?? scriptedModel())
  try {
    console.log(`agent (${modelId ?? 'scripted model'}, ${steps} steps): ${text}\n`)
    console.log(await fs.readFile('/workspace/notes.md'))
    await printHistory(fs, '/workspace/notes.md')
  } finally {
    fs.destroy()
  }
}

/** yfs kept every version of the file the agent changed. */
async function printHistory(fs: YjsFileSystem, path: string): Promise<void> {
  const versions = await fs.history(path)
  console.log(`${path}: ${versions.length} versions in its history`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
