// The toolset of one attempt: every tool source's tools for the run, by name. It offers the model
// its tools (without `execute`: the engine carries calls out itself, see dispatch.ts) and tells the
// dispatcher what a called name is. A new kind of tool is a new source in TOOL_SOURCES.
import { jsonSchema, tool, type ToolSet } from 'ai';
import { askUserTool } from './ask-user.js';
import { clientTools } from './client-tools.js';
import { connectionTools } from './connection-tools.js';
import { memoryTools } from './memory-tools.js';
import type { RunTool, ToolSource, ToolSourceContext } from './tool.js';

/** In order: a later source's tool replaces an earlier one of the same name. */
export const TOOL_SOURCES: readonly ToolSource[] = [clientTools, askUserTool, memoryTools, connectionTools];

export class Toolset {
  /** Every tool by name, offered or not (the last of a name wins). */
  private readonly byName = new Map<string, RunTool>();
  /** The tools the model is offered (the last offered tool of a name wins). */
  private readonly offered = new Map<string, RunTool>();
  private modelTools: ToolSet | null = null;

  constructor(tools: Iterable<RunTool>) {
    for (const runTool of tools) {
      this.byName.set(runTool.name, runTool);
      if (runTool.offered) this.offered.set(runTool.name, runTool);
    }
  }

  get(name: string): RunTool | undefined {
    return this.byName.get(name);
  }

  /** Offers tools that were not offered (deferred loading): the model sees them from its next request. */
  offer(names: readonly string[]) {
    for (const name of names) {
      const runTool = this.byName.get(name);
      if (!runTool || this.offered.has(name)) continue;
      this.offered.set(name, runTool);
      this.modelTools = null;
    }
  }

  isOffered(name: string): boolean {
    return this.offered.has(name);
  }

  /** The names offered to the model, in order. */
  offeredNames(): string[] {
    return [...this.offered.keys()];
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

export async function buildToolset(
  context: Omit<ToolSourceContext, 'offerTools'>,
  sources: readonly ToolSource[] = TOOL_SOURCES,
): Promise<Toolset> {
  const tools: RunTool[] = [];
  // Sources build their tools before the toolset exists; a later offer reaches it through this.
  let toolset: Toolset | null = null;
  const offerTools = (names: readonly string[]) => toolset?.offer(names);
  for (const source of sources) tools.push(...(await source({ ...context, offerTools })));
  toolset = new Toolset(tools);
  return toolset;
}
