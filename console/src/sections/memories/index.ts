// The memories section: the list (with the new-memory form) and one memory's page.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { MemoriesPage } from './MemoriesPage';
export { MemoryPage } from './MemoryPage';
