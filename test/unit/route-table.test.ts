// The REST table is put together from one rows file per domain (rest-shim/routes/*.ts). The router
// registers the rows in the table's order, so that order would decide between two rows matching the
// same request; this test makes sure no two do, so each domain's rows can live on their own.
import { describe, expect, it } from 'vitest';
import { routes, type Route } from '../../rest-shim/routes.js';

/** Whether some request path matches both table paths: same length, each segment equal or a `:param` on either side. */
function overlap(a: string, b: string): boolean {
  const left = a.split('/');
  const right = b.split('/');
  return (
    left.length === right.length && left.every((segment, i) => segment === right[i] || segment.startsWith(':') || right[i]!.startsWith(':'))
  );
}

const name = (route: Route) => `${route.method} ${route.path}`;

describe('the REST table', () => {
  it('has no two rows that match the same method and path', () => {
    const clashes: string[] = [];
    routes.forEach((route, i) => {
      for (const other of routes.slice(i + 1))
        if (route.method === other.method && overlap(route.path, other.path)) clashes.push(`${name(route)} / ${name(other)}`);
    });
    expect(clashes).toEqual([]);
  });
});
