// The devices section: paired envd daemons and the pairing requests waiting for an answer.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { DevicePage } from './DevicePage';
export { DevicesPage } from './DevicesPage';
