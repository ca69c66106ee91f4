// REST rows — Skills (a revisioned kind).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { revisionedRoutes, type Route } from '../../../../rest-shim/route-table.js';

export const skillRoutes: Route[] = [...revisionedRoutes('/api/v1/skills', 'skill_id', 'Skill', 'skillId')];
