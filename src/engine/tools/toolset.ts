// The toolset of one attempt: every tool source's tools for the run, by name (unique: colliding
// server-side tools are namespaced, see names.ts). It offers the model its tools (without `execute`:
// the engine carries calls out itself, see dispatch.ts) and tells the dispatcher what a called name
// is. A new kind of tool is a new source in TOOL_SOURCES.
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { Logger } from '../../lib/logger.js';
import { analysisTools } from './analysis-tools.js';
import { ArgumentChecker } from './argument-check.js';
import { askUserTool } from './ask-user.js';
import { clientTools } from './client-tools.js';
import { connectionTools } from './connection-tools.js';
import { memoryTools } from './memory-tools.js';
import { uniqueToolNames } from './names.js';
import { platformTools } from './platform-tools.js';
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
  connectionTools,
  skillTools,
  webTools,
  platformTools,
  pluginTools,
  subagentTools,
  analysisTools,
  toolOutputReader,
];

export class Toolset {
  /** Every tool by its name in the run, offered or not. */
  private readonly byName = new Map<string, RunTool>();
  /** The tools the model is offered. */
  private readonly offered = new Map<string, RunTool>();
  /** The name in the run of each tool as its source built it. */
  private readonly runNames = new Map<RunTool, string>();
  private modelTools: ToolSet | null = null;
  /** The source each tool came from, by its name in the run (what its trace spans say). */
  private readonly sources = new Map<string, string>();
  private readonly argumentChecker: ArgumentChecker;

  /** `logger` hears of a tool schema that cannot be compiled (its calls then go unchecked). */
  constructor(tools: readonly RunTool[], sources: readonly string[] = [], logger?: Pick<Logger, 'warn'>) {
    this.argumentChecker = new ArgumentChecker(logger);
    // uniqueToolNames keeps the order, so the i-th tool given is the i-th tool named.
    uniqueToolNames(tools).forEach((runTool, index) => {
      if (sources[index]) this.sources.set(runTool.name, sources[index]);
      this.runNames.set(tools[index]!, runTool.name);
      this.byName.set(runTool.name, runTool);
      if (runTool.offered) this.offered.set(runTool.name, runTool);
    });
  }

  /** The name a source's tool has in the run (its own name, or namespaced when it collided). */
  nameOf(sourceTool: RunTool): string | undefined {
    return this.runNames.get(sourceTool);
  }

  /** The tool source a tool of the run came from (`memoryTools`, `connectionTools`, …). */
  sourceOf(name: string): string | undefined {
    return this.sources.get(name);
  }

  get(name: string): RunTool | undefined {
    return this.byName.get(name);
  }

  /**
   * Why a call's arguments break its tool's input schema (the line the model is told), or the
   * arguments to use (in the tool's canonical spelling) when they fit — or when there is no such
   * tool, or its schema cannot be compiled.
   */
  checkArguments(name: string, input: unknown): { input: unknown; problem?: undefined } | { problem: string } {
    const runTool = this.byName.get(name);
    if (!runTool) return { input };
    return this.argumentChecker.check(name, runTool.inputSchema, runTool.canonicalInput ? runTool.canonicalInput(input) : input);
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

/** A source's name in traces: `memoryTools` → `memory`, `askUserTool` → `ask_user`, `toolOutputReader` → `tool_output_reader`. */
function sourceName(source: ToolSource): string {
  return source.name.replace(/Tools?$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) || 'tools';
}

export async function buildToolset(
  context: Omit<ToolSourceContext, 'offerTools' | 'nameInRun'>,
  sources: readonly ToolSource[] = TOOL_SOURCES,
): Promise<Toolset> {
  const tools: RunTool[] = [];
  const sourceNames: string[] = [];
  // Sources build their tools before the toolset exists; a later offer reaches it through this.
  let toolset: Toolset | null = null;
  const offerTools = (names: readonly string[]) => toolset?.offer(names);
  const nameInRun = (runTool: RunTool) => toolset?.nameOf(runTool) ?? runTool.name;
  // A source may look at what the sources before it offered (the output reader does).
  for (const source of sources) {
    const built = await source({ ...context, offerTools, nameInRun, earlier: tools });
    tools.push(...built);
    const name = sourceName(source);
    for (let i = 0; i < built.length; i++) sourceNames.push(name);
  }
  toolset = new Toolset(tools, sourceNames, context.call.logger);
  return toolset;
}
