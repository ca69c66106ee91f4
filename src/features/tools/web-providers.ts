// The web provider a run's web toolset uses: one of the run's workspace, of the web kind, enabled,
// with its credential when its type needs one. Refusals are AppErrors whose message the model reads.
import { AppError, notFound } from '../../lib/errors.js';
import type { OutboundPolicy } from '../../lib/outbound-policy.js';
import type { ProviderType } from '../../providers/index.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { providerForUse } from '../models/providers.js';

export interface UsableWebProvider {
  id: string;
  name: string;
  type: ProviderType;
  config: Record<string, unknown>;
  credential: Record<string, unknown> | null;
  extraHeaders: Record<string, string>;
  /** The outbound policy's fetch. */
  fetch: typeof fetch;
  /** The outbound policy. */
  outbound: OutboundPolicy;
}

export async function usableWebProvider(call: CallContext, id: string): Promise<UsableWebProvider> {
  requirePermission(call.actor, 'read');
  const row = await call.db.provider.findUnique({ where: { id } });
  if (!row || row.workspaceId !== call.actor.workspaceId || row.kind !== 'web') throw notFound('web provider', id);
  if (!row.enabled) throw new AppError('disabled', `the web provider "${row.name}" is disabled`);
  const usable = providerForUse(call.deps, row);
  if (usable.type.credentialRequired && !usable.credential)
    throw new AppError('failed_precondition', `the web provider "${row.name}" has no credential configured`);
  return { id: row.id, name: row.name, ...usable };
}
