// The budgets section: spending limits per UTC period, with what was spent so far.
// Its page is loaded as one chunk of the bundle the first time it is shown; its path is in console/src/routes.tsx.
export { BudgetsPage } from './BudgetsPage';
