// The memories section: the list (with the new-memory form) and one memory's page.
import type { ConsoleRoute } from '../../routes';
import { MemoriesPage } from './MemoriesPage';
import { MemoryPage } from './MemoryPage';

export const memoriesRoutes: ConsoleRoute[] = [
  { path: '/memories', component: MemoriesPage, nav: 'Memories' },
  { path: '/memories/:memoryId', component: MemoryPage },
];
