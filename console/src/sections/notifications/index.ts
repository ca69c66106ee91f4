// The notifications section: web-push opt-in for the signed-in user in this browser.
import type { ConsoleRoute } from '../../routes';
import { NotificationsPage } from './NotificationsPage';

/** The activity heartbeat, for the signed-in frame (every page), not a page of its own. */
export { PushActivity } from './PushActivity';

export const notificationsRoutes: ConsoleRoute[] = [{ path: '/notifications', component: NotificationsPage, nav: 'Notifications' }];
