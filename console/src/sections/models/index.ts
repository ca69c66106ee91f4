// The models section: model providers (the services that answer), their models (each with its own page
// to edit it), and the one-click offline development model for a fresh install.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { ModelPage } from './ModelPage';
export { ModelsPage } from './ModelsPage';
export { ProviderPage } from './ProviderPage';
