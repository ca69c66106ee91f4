// The filters of a list of things served by a provider (connections, models): a text search, the
// enabled state and the provider, kept in the address (?q=&enabled=&provider=), and the variables
// they make for the list query (a filter left empty is left out). Also the choice of the provider a
// new thing is served by.
import type { ProviderChoiceFragment } from '../../generated/graphql';
import { useUrlFilters } from '../lib/useUrlFilters';
import { EnabledFilter, Field, Select } from './ui';

export interface ProviderFilterValues {
  q: string;
  enabled: string;
  providerId: string;
  setFilter(name: string, value: string): void;
  /** The list query's filter variables. */
  variables: { q?: string; enabled?: boolean; providerId?: string };
}

export function useProviderFilters(): ProviderFilterValues {
  const { filter, setFilter } = useUrlFilters();
  const q = filter('q');
  const enabled = filter('enabled');
  const providerId = filter('provider');
  const variables = {
    ...(q ? { q } : {}),
    ...(enabled ? { enabled: enabled === 'true' } : {}),
    ...(providerId ? { providerId } : {}),
  };
  return { q, enabled, providerId, setFilter, variables };
}

export function ProviderFilters({
  label,
  filters,
  providers,
}: {
  /** The form's accessible name ("Filter models"). */
  label: string;
  filters: ProviderFilterValues;
  providers: Pick<ProviderChoiceFragment, 'id' | 'name'>[];
}) {
  const { q, enabled, providerId, setFilter } = filters;
  return (
    <form className="filters" role="search" aria-label={label} onSubmit={(event) => event.preventDefault()}>
      <Field label="Search" type="search" value={q} onChange={(event) => setFilter('q', event.target.value)} />
      <EnabledFilter value={enabled} onChange={(value) => setFilter('enabled', value)} />
      <Select
        label="Provider"
        value={providerId}
        onChange={(event) => setFilter('provider', event.target.value)}
        options={[{ value: '', label: 'Any' }, ...providers.map((p) => ({ value: p.id, label: p.name }))]}
      />
    </form>
  );
}

/** The provider a new thing is served by, each named with its type and whether it is disabled. */
export function ProviderSelect({
  label,
  value,
  onValue,
  providers,
}: {
  label: string;
  value: string;
  onValue(providerId: string): void;
  providers: ProviderChoiceFragment[];
}) {
  return (
    <Select
      label={label}
      value={value}
      onValue={onValue}
      options={providers.map((p) => ({ value: p.id, label: `${p.name} (${p.type}${p.enabled ? '' : ', disabled'})` }))}
    />
  );
}
