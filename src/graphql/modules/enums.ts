// The closed sets of the API as GraphQL enums. Each value's name is the spec's own lowercase string
// (`client_tool`, `in_progress`), so the wire, the REST shim and the spec spell every value the same
// way; the sets come from the services' own lists where they exist, so a new value is added once.
// A bad value in an argument fails variable coercion; src/graphql/errors.ts answers it as the
// services did (400 invalid_argument, "<field> must be one of …", naming the field).
import type { EnumRef, SchemaTypes } from '@pothos/core';
import { builder } from '../builder.js';
import { registerClosedSet } from '../closed-sets.js';
import { PROVIDER_KINDS } from '../../features/models/provider-types.js';
import { MEDIA_KINDS } from '../../lib/media.js';
import { PERMISSIONS, ROLES } from '../../services/deps.js';
import { ENTRY_STATUSES } from '../../features/runs/inbox.js';
import { DELIVERIES, LINEAGES, TRIGGERS } from '../../features/runs/run-plan.js';
import { RUN_STATUSES, WAIT_REASONS } from '../../features/runs/run-lifecycle.js';
import { APPROVAL_ACTIONS, CALL_STATUSES } from '../../features/runs/resume.js';
import { MEMORY_ACCESS } from '../../features/agents/documents/config-schema.js';
import { SKILL_SOURCES } from '../../features/runs/run-skills.js';
import { ENVIRONMENT_STATUSES } from '../../features/environments/environments.js';

/** An enum whose values are `values`, each named and valued by its own string. */
export function closedSet<const T extends readonly string[]>(name: string, values: T, description: string) {
  registerClosedSet(name, values);
  return builder.enumType(name, { values, description });
}

export const RunStatusEnum = closedSet('RunStatus', RUN_STATUSES, 'Where a run is: accepted → running → waiting or sealed.');
export const WaitReasonEnum = closedSet('WaitReason', WAIT_REASONS, 'What a waiting run waits for.');
export const RunTriggerEnum = closedSet('RunTrigger', TRIGGERS, 'What started a run.');
export const RunLineageEnum = closedSet('RunLineage', LINEAGES, 'How a run descends from another.');
export const RevisionSelectionEnum = closedSet(
  'RevisionSelection',
  ['default', 'pinned'] as const,
  "How a run's agent revision was chosen: the agent's default, or one the request named.",
);
export const RUN_ITEM_KINDS = [
  'user_message',
  'text_message',
  'reasoning',
  'client_call',
  'approval_request',
  'question',
  'tool_call',
  'tool_result',
  'review',
  'memory_recall',
  'subagent_run',
  'media_description',
  'context_compaction',
  'provider_wait',
  'output',
  'error',
] as const;
export const EnvironmentStatusEnum = closedSet(
  'EnvironmentStatus',
  ENVIRONMENT_STATUSES,
  'Where an environment is: provisioning → ready (or failed); ready → stopped; any → destroyed.',
);
export const RunItemKindEnum = closedSet('RunItemKind', RUN_ITEM_KINDS, 'What a run item is.');
export const RunItemStateEnum = closedSet(
  'RunItemState',
  ['in_progress', 'completed', 'failed'] as const,
  'in_progress → completed (or failed when the attempt was interrupted).',
);
export const PendingPresentationKindEnum = closedSet(
  'PendingPresentationKind',
  ['approval', 'client_call', 'question'] as const,
  'How a client presents a pending tool call: an approval to grant, a call to carry out, a question for the user.',
);
export const ResumeApprovalActionEnum = closedSet('ResumeApprovalAction', APPROVAL_ACTIONS, 'How a resume answered a pending approval.');
export const ResumeCallStatusEnum = closedSet(
  'ResumeCallStatus',
  CALL_STATUSES,
  "How a resume answered a pending call: the client's tool returned a value, or an error.",
);
export const MemoryMountAccessEnum = closedSet(
  'MemoryMountAccess',
  MEMORY_ACCESS,
  'What a run may do with a mounted memory: read (search) it, or also write (add) to it.',
);
export const InboxDeliveryModeEnum = closedSet(
  'InboxDeliveryMode',
  DELIVERIES,
  'How an inbox entry meets an active run: steer joins it, queue waits, interrupt cancels it.',
);
export const InboxEntryStatusEnum = closedSet('InboxEntryStatus', ENTRY_STATUSES, "Where an inbox entry is in its thread's inbox.");
export const InboxEntryKindEnum = closedSet('InboxEntryKind', ['message'] as const, 'What an inbox entry carries.');
export const ThreadOriginEnum = closedSet('ThreadOrigin', ['new', 'fork', 'subagent'] as const, 'How a thread came to be.');
export const MediaKindEnum = closedSet('MediaKind', MEDIA_KINDS, 'The media a message part may carry besides text.');
export const ProviderKindEnum = closedSet('ProviderKind', PROVIDER_KINDS, 'The kinds of provider.');
export const PermissionEnum = closedSet('Permission', PERMISSIONS, 'What a credential may do in its workspace.');
export const RoleEnum = closedSet(
  'Role',
  Object.keys(ROLES) as (keyof typeof ROLES)[],
  "A member's role in a workspace (a set of permissions).",
);
export const PrincipalKindEnum = closedSet('PrincipalKind', ['api_key', 'user'] as const, 'Who a credential belongs to.');

/**
 * A stored text column of a closed set, typed as its enum's values: the services write only the
 * values of their own lists (the same lists the enums are built from), so no other value is stored.
 */
export function storedValue<T>(_set: EnumRef<SchemaTypes, T>, value: string): T;
export function storedValue<T>(_set: EnumRef<SchemaTypes, T>, value: string | null): T | null;
export function storedValue<T>(_set: EnumRef<SchemaTypes, T>, value: string | null): T | null {
  return value as T | null;
}
export const SkillSourceEnum = closedSet(
  'SkillSource',
  SKILL_SOURCES,
  "Where a run's skill comes from: the run's workspace, or shipped with the service.",
);
