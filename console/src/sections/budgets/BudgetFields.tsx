// The fields a budget is made of, shared by the create and edit forms, and the draft they edit: what
// the user types, turned into the mutation's input only when the form is sent (so a half-typed number
// is the form's own problem, named before anything is sent).
import type { BudgetRowFragment, CreateBudgetInput } from '../../../generated/graphql';
import { Field, Select } from '../../components/ui';
import { draftBinder } from '../../lib/draft';

export interface BudgetDraft {
  name: string;
  scopeKind: string;
  scopeId: string;
  period: string;
  cost: string;
  currency: string;
  tokens: string;
  action: string;
  notifyAt: string;
}

export const emptyBudgetDraft: BudgetDraft = {
  name: '',
  scopeKind: 'workspace',
  scopeId: '',
  period: 'month',
  cost: '',
  currency: 'USD',
  tokens: '',
  action: 'notify',
  notifyAt: '0.8',
};

export function draftOf(budget: BudgetRowFragment): BudgetDraft {
  return {
    name: budget.name,
    scopeKind: budget.scope.kind,
    scopeId: budget.scope.id ?? '',
    period: budget.period,
    cost: budget.limit.cost ?? '',
    currency: budget.limit.currency,
    tokens: budget.limit.tokens === null || budget.limit.tokens === undefined ? '' : String(budget.limit.tokens),
    action: budget.action,
    notifyAt: budget.notifyAt.join(', '),
  };
}

/** The input the draft stands for; throws a message naming the field the form cannot read. */
export function inputOf(draft: BudgetDraft): CreateBudgetInput {
  const tokens = draft.tokens.trim() === '' ? null : Number(draft.tokens.trim());
  if (tokens !== null && !Number.isInteger(tokens)) throw new Error('Token limit: a whole number, please.');
  const notifyAt = draft.notifyAt
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map(Number);
  if (notifyAt.some((t) => Number.isNaN(t))) throw new Error('Notify at: fractions such as 0.5, 0.8, separated by commas.');
  return {
    name: draft.name.trim(),
    scope: {
      kind: draft.scopeKind as CreateBudgetInput['scope']['kind'],
      ...(draft.scopeKind === 'workspace' ? {} : { id: draft.scopeId.trim() }),
    },
    period: draft.period as CreateBudgetInput['period'],
    limit: {
      ...(draft.cost.trim() ? { cost: draft.cost.trim() } : {}),
      currency: draft.currency.trim() || 'USD',
      ...(tokens === null ? {} : { tokens }),
    },
    action: draft.action as CreateBudgetInput['action'],
    notifyAt,
  };
}

export function BudgetFields({ draft, onChange }: { draft: BudgetDraft; onChange(draft: BudgetDraft): void }) {
  const bind = draftBinder(draft, onChange);
  return (
    <>
      <Field label="Name" required {...bind('name')} />
      <Select
        label="Applies to"
        value={draft.scopeKind}
        onValue={(scopeKind) => onChange({ ...draft, scopeKind })}
        options={[
          { value: 'workspace', label: 'The whole workspace' },
          { value: 'agent', label: 'One agent' },
          { value: 'api_key', label: 'One API key' },
        ]}
      />
      {draft.scopeKind === 'workspace' ? null : (
        <Field label={draft.scopeKind === 'agent' ? 'Agent id' : 'API key id'} required {...bind('scopeId')} />
      )}
      <Select
        label="Period (UTC)"
        value={draft.period}
        onValue={(period) => onChange({ ...draft, period })}
        options={[
          { value: 'day', label: 'Day' },
          { value: 'week', label: 'Week (from Monday)' },
          { value: 'month', label: 'Month' },
        ]}
      />
      <Field label="Cost limit" inputMode="decimal" placeholder="10.00" hint="A decimal amount; empty: no cost limit." {...bind('cost')} />
      <Field label="Currency" {...bind('currency')} />
      <Field label="Token limit" inputMode="numeric" hint="Input + output tokens; empty: no token limit." {...bind('tokens')} />
      <Select
        label="When spent"
        value={draft.action}
        onValue={(action) => onChange({ ...draft, action })}
        options={[
          { value: 'notify', label: 'Notify only' },
          { value: 'block', label: 'Block new runs and model requests' },
        ]}
      />
      <Field label="Notify at" hint="Fractions of the limit, e.g. 0.5, 0.8." {...bind('notifyAt')} />
    </>
  );
}
