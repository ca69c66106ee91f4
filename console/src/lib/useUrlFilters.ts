// A list page's filters kept in the address (?q=&status=…), so a filtered list can be shared, reloaded and
// walked back through. Two ways to change them: `setFilter` for a control that filters as it changes
// (the history entry is replaced, so typing does not fill the history), and `applyFilters` for a filter
// form's submit (a new history entry holding exactly the submitted filters).
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

export type FilterValue = string | string[] | boolean | null | undefined;

export function useUrlFilters() {
  const [params, setParams] = useSearchParams();

  /** One filter, as typed (a live search field keeps its spaces); the others stay. An empty value (or
   * list) removes it; a list repeats the parameter. */
  const setFilter = useCallback(
    (name: string, value: FilterValue) => {
      setParams(
        (previous) => {
          const next = new URLSearchParams(previous);
          writeFilter(next, name, value, false);
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );

  /** Exactly these filters, trimmed (empty ones left out); whatever else the address held is dropped. */
  const applyFilters = useCallback(
    <T extends { [K in keyof T]: FilterValue }>(values: T) => {
      const next = new URLSearchParams();
      for (const [name, value] of Object.entries(values as Record<string, FilterValue>)) writeFilter(next, name, value, true);
      setParams(next);
    },
    [setParams],
  );

  /** A filter's value, '' when it is not set. */
  const filter = (name: string): string => params.get(name) ?? '';

  return { params, filter, setFilter, applyFilters };
}

function writeFilter(params: URLSearchParams, name: string, value: FilterValue, trim: boolean) {
  params.delete(name);
  const values = Array.isArray(value) ? value : [value === true ? 'true' : value === false ? '' : (value ?? '')];
  for (const entry of values) {
    const written = trim ? entry.trim() : entry;
    if (written) params.append(name, written);
  }
}
