// The findings section: the findings list and one finding, the analyses list (with the form that
// starts one) and one analysis.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { FindingsPage } from './FindingsPage';
export { FindingPage } from './FindingPage';
export { AnalysesPage } from './AnalysesPage';
export { AnalysisPage } from './AnalysisPage';
