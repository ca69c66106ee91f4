// Agent names for the findings pages: findings and analyses carry agent ids; people read names.
import { ConsoleFindingAgentsDocument } from '../../../generated/graphql';
import { Link } from 'react-router';
import { useQuery } from '../../api';
import { type AgentName } from './documents';

export function useAgentNames(): { agents: AgentName[]; nameOf(id: string | null | undefined): string | undefined; error: unknown } {
  const { data, error } = useQuery(ConsoleFindingAgentsDocument, {});
  const agents = [...(data?.active.nodes ?? []), ...(data?.archived.nodes ?? [])];
  return { agents, nameOf: (id) => agents.find((agent) => agent.id === id)?.name, error };
}

/** An agent by name (its id when the name is not known), linked to its page. */
export function AgentLink({ id, name }: { id: string | null | undefined; name: string | undefined }) {
  if (!id) return <span className="muted">none</span>;
  return <Link to={`/agents/${id}`}>{name ?? id}</Link>;
}
