// Whether the composer already applied its proposal: a composer run may create the agent itself
// (`create_agent`, once the user approved the call) and then still end with the same proposal. The
// create form must then say so, or "Create agent" would make a second agent.
import type { ConsoleComposerRunItemsQuery } from '../../../generated/graphql.ts';

/** The agent a composer's `create_agent` call created. */
export interface CreatedAgent {
  id: string;
  name: string;
}

/** A composer run's item, as the composer reads it. */
export type ItemLike = Pick<ConsoleComposerRunItemsQuery['runItems']['items'][number], 'kind' | 'content'>;

/**
 * The agents that `create_agent` calls among these run items created (their results name them);
 * refused or failed calls created nothing and are left out.
 */
export function agentsCreated(items: readonly ItemLike[]): CreatedAgent[] {
  const created: CreatedAgent[] = [];
  for (const item of items) {
    if (item.kind !== 'tool_result' || !item.content || typeof item.content !== 'object') continue;
    const { tool_name: toolName, result } = item.content as { tool_name?: unknown; result?: unknown };
    if (toolName !== 'create_agent' || !result || typeof result !== 'object') continue;
    const { id, name } = result as { id?: unknown; name?: unknown };
    if (typeof id === 'string' && typeof name === 'string') created.push({ id, name });
  }
  return created;
}

/**
 * The agent that applied a proposal: the newest one created under the proposal's name (the composer
 * names the agent it proposes; one it created under that name in the same conversation is that
 * proposal, applied).
 */
export function appliedAs(created: readonly CreatedAgent[], proposalName: string): CreatedAgent | null {
  return created.filter((agent) => agent.name === proposalName).at(-1) ?? null;
}
