// /budgets: the workspace's budgets — what each limits, what its current UTC period spent (a progress
// bar per limit), and the forms that create, change and delete one. Needs `admin`, like the API.
import {
  ConsoleBudgetsDocument,
  ConsoleCreateBudgetDocument,
  ConsoleDeleteBudgetDocument,
  ConsoleUpdateBudgetDocument,
  type BudgetRowFragment,
} from '../../../generated/graphql';
import { useState, type FormEvent } from 'react';
import { useMutation } from '../../api';
import { Badge, Field, PageHeader, Time } from '../../components/ui';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { CreatePanel, FormEnd } from '../../components/Forms';
import { PagedTable, type Column } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { BudgetFields, draftOf, emptyBudgetDraft, inputOf, type BudgetDraft } from './BudgetFields';

const PAGE = 50;

export function BudgetsPage() {
  const { filter, setFilter } = useUrlFilters();
  const q = filter('q');
  const list = usePagedQuery(ConsoleBudgetsDocument, { first: PAGE, ...(q ? { q } : {}) }, (data) => data.budgets);
  const [editing, setEditing] = useState<BudgetRowFragment | null>(null);
  const [remove, removal] = useMutation(ConsoleDeleteBudgetDocument);
  const refetch = () => void list.refetch();

  const columns: Column<BudgetRowFragment>[] = [
    { name: 'Name', cell: (budget) => budget.name },
    {
      name: 'Applies to',
      cell: (budget) => (budget.scope.kind === 'workspace' ? 'workspace' : `${budget.scope.kind.replace('_', ' ')} ${budget.scope.id}`),
    },
    {
      name: 'Period',
      cell: (budget) => (
        <>
          {budget.period} <small className="muted">since</small> <Time value={budget.periodStartedAt} />
        </>
      ),
    },
    { name: 'Spent', cell: (budget) => <Spending budget={budget} /> },
    { name: 'When spent', cell: (budget) => <Badge value={budget.action} /> },
    {
      name: 'Actions',
      cell: (budget) => (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setEditing(budget)}>
            Edit {budget.name}
          </button>
          <ConfirmButton
            label={`Delete ${budget.name}`}
            title={`Delete ${budget.name}?`}
            confirmLabel="Delete budget"
            disabled={removal.loading}
            onConfirm={async () => {
              if (await remove({ id: budget.id, ifMatch: budget.etag })) {
                if (editing?.id === budget.id) setEditing(null);
                refetch();
              }
            }}
          >
            Its limit stops applying at once, and what it counted is forgotten.
          </ConfirmButton>
        </div>
      ),
    },
  ];

  return (
    <>
      <PageHeader title="Budgets">Spending limits per UTC day, week or month, for the workspace, one agent or one API key.</PageHeader>
      {editing ? (
        <EditBudget key={editing.id} budget={editing} onDone={() => (setEditing(null), refetch())} />
      ) : (
        <CreateBudget onCreated={refetch} />
      )}
      <section aria-labelledby="budgets-heading">
        <h2 id="budgets-heading">Budgets</h2>
        <form className="filters" role="search" aria-label="Filter budgets" onSubmit={(event) => event.preventDefault()}>
          <Field label="Search" type="search" value={q} onChange={(event) => setFilter('q', event.target.value)} />
        </form>
        <PagedTable list={list} columns={columns} empty="No budgets match." label="Budgets" />
      </section>
    </>
  );
}

/** A progress bar per limit: what the current period spent of it. */
function Spending({ budget }: { budget: BudgetRowFragment }) {
  const bars: { what: string; spent: number; limit: number; text: string }[] = [];
  if (budget.limit.cost)
    bars.push({
      what: 'cost',
      spent: Number(budget.spent.cost),
      limit: Number(budget.limit.cost),
      text: `${budget.spent.cost} of ${budget.limit.cost} ${budget.limit.currency}`,
    });
  if (budget.limit.tokens)
    bars.push({
      what: 'tokens',
      spent: budget.spent.tokens,
      limit: budget.limit.tokens,
      text: `${budget.spent.tokens} of ${budget.limit.tokens} tokens`,
    });
  return (
    <>
      {bars.map((bar) => (
        <div key={bar.what} className="budget-bar">
          <progress aria-label={`${budget.name}: ${bar.what} spent`} max={bar.limit} value={Math.min(bar.spent, bar.limit)} />{' '}
          <small>{bar.text}</small>
        </div>
      ))}
      {/* What this period announced (budget.threshold_reached, budget.exceeded), as the webhooks were sent. */}
      {budget.notified.length ? (
        <small className="budget-events">
          Notified at {budget.notified.map((fraction) => `${Math.round(fraction * 100)} %`).join(', ')}
        </small>
      ) : null}
      {budget.exceededAt ? (
        <small className="budget-events">
          {' '}
          Limit reached <Time value={budget.exceededAt} />
        </small>
      ) : null}
    </>
  );
}

function useBudgetForm(initial: BudgetDraft) {
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const read = () => {
    setProblem(null);
    try {
      return inputOf(draft);
    } catch (error) {
      setProblem((error as Error).message);
      return null;
    }
  };
  return { draft, setDraft, problem, read };
}

function CreateBudget({ onCreated }: { onCreated(): void }) {
  const [create, state] = useMutation(ConsoleCreateBudgetDocument);
  const form = useBudgetForm(emptyBudgetDraft);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = form.read();
    if (input && (await create({ input }))) {
      form.setDraft(emptyBudgetDraft);
      onCreated();
    }
  }
  return (
    <CreatePanel
      title="New budget"
      className="panel infra-panel"
      problem={form.problem}
      form={{ onSubmit: (event) => void submit(event), formError: undefined, state }}
      errorTitle="Could not create the budget"
      withField
      submitLabel="Create budget"
    >
      <BudgetFields draft={form.draft} onChange={form.setDraft} />
    </CreatePanel>
  );
}

function EditBudget({ budget, onDone }: { budget: BudgetRowFragment; onDone(): void }) {
  const [update, state] = useMutation(ConsoleUpdateBudgetDocument);
  const form = useBudgetForm(draftOf(budget));
  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = form.read();
    if (input && (await update({ id: budget.id, ifMatch: budget.etag, input }))) onDone();
  }
  return (
    <section aria-labelledby="edit-budget" className="panel infra-panel">
      <h2 id="edit-budget">Edit {budget.name}</h2>
      <form onSubmit={submit} aria-label={`Edit ${budget.name}`}>
        <BudgetFields draft={form.draft} onChange={form.setDraft} />
        <FormEnd
          problem={form.problem}
          error={state.error}
          errorTitle="Could not save the budget"
          withField
          stale={{ what: 'budget', onReload: onDone }}
          busy={state.loading}
          busyLabel="Saving…"
        >
          Save budget
        </FormEnd>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </form>
    </section>
  );
}
