// Reads a query again when a value it depends on moves (a run's status, a count of changes made
// elsewhere on the page), but not on the first render: the query's own first read already has it.
import { useEffect, useRef } from 'react';

export function useRefetchOnChange(value: unknown, refetch: () => unknown): void {
  const seen = useRef(value);
  useEffect(() => {
    if (seen.current === value) return;
    seen.current = value;
    void refetch();
  }, [value, refetch]);
}
