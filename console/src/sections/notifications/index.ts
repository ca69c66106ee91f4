// The notifications section: web-push opt-in for the signed-in user in this browser.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { NotificationsPage } from './NotificationsPage';
