// REST rows — Login and logout (support surface: validation failures answer 422).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { type Route } from '../../../../rest-shim/route-table.js';

export const authRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/auth/login',
    operation: 'AuthLogin',
    surface: 'support',
    body: { fields: { email: 'email', password: 'password' }, required: true },
    result: 'login',
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    operation: 'AuthLogout',
    surface: 'support',
    body: 'none',
    result: 'logout.loggedOut',
    empty: true,
  },
];
