// The findings section: the findings list and one finding, the analyses list (with the form that
// starts one) and one analysis.
import type { ConsoleRoute } from '../../routes';
import { FindingsPage } from './FindingsPage';
import { FindingPage } from './FindingPage';
import { AnalysesPage } from './AnalysesPage';
import { AnalysisPage } from './AnalysisPage';

export const findingsRoutes: ConsoleRoute[] = [
  { path: '/findings', component: FindingsPage, nav: 'Findings' },
  { path: '/findings/analyses', component: AnalysesPage },
  { path: '/findings/analyses/:analysisId', component: AnalysisPage },
  { path: '/findings/:findingId', component: FindingPage },
];
