// The threads section: the list at /threads and one thread at /threads/:threadId.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { ThreadPage } from './ThreadPage';
export { ThreadsListPage } from './ThreadsListPage';
