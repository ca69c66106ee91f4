// The threads section: the list at /threads and one thread at /threads/:threadId.
import type { ConsoleRoute } from '../../routes';
import { ThreadPage } from './ThreadPage';
import { ThreadsListPage } from './ThreadsListPage';

export const threadsRoutes: ConsoleRoute[] = [
  { path: '/threads', component: ThreadsListPage, nav: 'Threads' },
  { path: '/threads/:threadId', component: ThreadPage },
];
