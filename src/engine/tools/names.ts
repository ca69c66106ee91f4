// Tool names are unique within a run. When sources offer tools of the same name, the client-side
// ones (client tools, `ask_user`) keep it — the client carries a call out by the name it configured —
// and every server-side one is renamed `<namespace>__<name>` (e.g. `notes__http_request`). Names stay
// within what model APIs accept (`^[A-Za-z0-9_-]{1,64}$`); a clash that remains gets `__2`, `__3`, …
import type { RunTool } from './tool.js';

export const MAX_TOOL_NAME = 64;
const DEFAULT_NAMESPACE = 'tool';

/** A namespace as a name part: lower-case letters, digits and `_`, at most 24 characters. */
export function namespacePart(namespace: string | undefined): string {
  return (
    (namespace ?? DEFAULT_NAMESPACE)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 24) || DEFAULT_NAMESPACE
  );
}

const fit = (name: string) => name.slice(0, MAX_TOOL_NAME);

/** The tools with unique names, in the order given. */
export function uniqueToolNames(tools: readonly RunTool[]): RunTool[] {
  const count = new Map<string, number>();
  for (const runTool of tools) count.set(runTool.name, (count.get(runTool.name) ?? 0) + 1);
  // A collision keeps the name for the first client-side tool; everything else is namespaced.
  const keeper = new Map<string, RunTool>();
  for (const runTool of tools) {
    if ((count.get(runTool.name) ?? 0) < 2) continue;
    if (runTool.execution.kind !== 'server' && !keeper.has(runTool.name)) keeper.set(runTool.name, runTool);
  }
  const taken = new Set<string>();
  // Names that need no change are reserved first, so a renamed tool never takes one of them.
  for (const runTool of tools) if ((count.get(runTool.name) ?? 0) < 2 || keeper.get(runTool.name) === runTool) taken.add(runTool.name);
  return tools.map((runTool) => {
    if ((count.get(runTool.name) ?? 0) < 2 || keeper.get(runTool.name) === runTool) return runTool;
    const base = fit(`${namespacePart(runTool.namespace)}__${runTool.name}`);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_TOOL_NAME - String(n).length - 2)}__${n}`;
    taken.add(name);
    return { ...runTool, name };
  });
}
