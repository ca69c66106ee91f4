// The toolset of one attempt: every tool source's tools for the run, by name (unique: colliding
// server-side tools are namespaced, see names.ts). It offers the model its tools (without `execute`:
// the engine carries calls out itself, see dispatch.ts) and tells the dispatcher what a called name
// is. A new kind of tool is a new source in TOOL_SOURCES.
import { jsonSchema, tool, type ToolSet } from 'ai';
import { askUserTool } from './ask-user.js';
import { clientTools } from './client-tools.js';
import { memoryTools } from './memory-tools.js';
import { uniqueToolNames } from './names.js';
import { pluginTools } from './plugin-tools.js';
import { skillTools } from './skills.js';
import { subagentTools } from './subagents.js';
import { webTools } from './web-tools.js';
import type { RunTool, ToolSource, ToolSourceContext } from './tool.js';
import { toolOutputReader } from './tool-output.js';

/** In order (the order the model sees); `toolOutputReader` last: it offers itself only beside server tools. */
export const TOOL_SOURCES: readonly ToolSource[] = [
  clientTools,
  askUserTool,
  memoryTools,
  skillTools,
  webTools,
  pluginTools,
  subagentTools,
  toolOutputReader,
];

export class Toolset {
  /** Every tool by its name in the run, offered or not. */
  private readonly byName = new Map<string, RunTool>();
  /** The tools the model is offered. */
  private readonly offered = new Map<string, RunTool>();
  private modelTools: ToolSet | null = null;

  constructor(tools: readonly RunTool[]) {
    for (const runTool of uniqueToolNames(tools)) {
      this.byName.set(runTool.name, runTool);
      if (runTool.offered) this.offered.set(runTool.name, runTool);
    }
  }

  get(name: string): RunTool | undefined {
    return this.byName.get(name);
  }

  isOffered(name: string): boolean {
    return this.offered.has(name);
  }

  /** The names offered to the model, in order. */
  offeredNames(): string[] {
    return [...this.offered.keys()];
  }

  /** The system prompt passages of the offered tools, in order. */
  instructions(): string[] {
    return [...this.offered.values()].flatMap((runTool) => (runTool.instructions ? [runTool.instructions] : []));
  }

  /** The offered tools as the AI SDK describes them to the model (built once per attempt). */
  forModel(): ToolSet {
    if (!this.modelTools) {
      this.modelTools = {};
      for (const [name, runTool] of this.offered)
        this.modelTools[name] = tool({ description: runTool.description, inputSchema: jsonSchema(runTool.inputSchema) });
    }
    return this.modelTools;
  }
}

export async function buildToolset(context: ToolSourceContext, sources: readonly ToolSource[] = TOOL_SOURCES): Promise<Toolset> {
  const tools: RunTool[] = [];
  // A source may look at what the sources before it offered (the output reader does).
  for (const source of sources) tools.push(...(await source({ ...context, earlier: tools })));
  return new Toolset(tools);
}
