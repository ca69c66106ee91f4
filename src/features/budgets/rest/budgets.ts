// REST rows — budgets (every operation needs `admin`).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { guardedActionRow, kindRows, type Route } from '../../../../rest-shim/route-table.js';

export const budgetRoutes: Route[] = [
  ...kindRows('/api/v1/budgets', 'budget_id', 'Budget', {
    filters: (req) => ({ q: req.query('q'), scopeKind: req.query('scope_kind') }),
  }),
  guardedActionRow('DELETE', '/api/v1/budgets/:budget_id', 'BudgetDelete', 'deleteBudget.deleted', { ifMatchOptional: true, empty: true }),
];
