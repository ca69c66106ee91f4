// Installs every provider type into the registry (imported once by the app).
import './model-types.js';
import './vendor-model-types.js';
// The order of registration is the catalogue's order: environments, then connectors, then memories.
import './environment-types.js';
import './connector-types.js';
import './memory-types.js';
// Environment types in modules of their own (each registers itself).
import './environments/fly.js';
import './environments/kubernetes.js';
import './environments/e2b.js';
import './environments/daytona.js';
import './environments/modal.js';
import './web/index.js';
export * from './registry.js';
export * from './environment-driver.js';
