// Installs every provider type into the registry (imported once by the app).
import './model-types.js';
import './model-types-more.js';
import './other-types.js';
// Environment types in modules of their own (each registers itself).
import './environments/fly.js';
import './environments/kubernetes.js';
import './environments/e2b.js';
import './environments/daytona.js';
import './environments/modal.js';
import './web/index.js';
export * from './registry.js';
export * from './environment-driver.js';
