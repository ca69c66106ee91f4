// Environment provider types of the first catalogue: the container engine, the service's own machine
// and a paired device. The spec makes every environment type's test `unsupported` except the container
// engine's (which only pings); the hosted sandboxes register themselves from ./environments.
import { PROBE_TIMEOUT_MS } from './http-probe.js';
import { defineProviderType, jsonSchemaOf, registerProviderType } from './registry.js';
import { NoConfiguration, NoCredential } from './common-schemas.js';
import { LocalTemplate, localEnvironmentDriver } from './environments/local.js';
import { DockerConfig, DockerCredential, DockerTemplate, dockerEnvironmentDriver, engineEndpoint } from './environments/docker.js';
import { EngineError, pingEngine } from './environments/docker-engine.js';
import { checkEnvdConfig, EnvdTemplate, envdEnvironmentDriver } from './environments/envd.js';

registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'docker',
    title: 'Container engine (Docker Engine API)',
    configuration: DockerConfig,
    credential: DockerCredential,
    credentialRequired: false,
    endpointFields: ['endpoint'],
    environment: {
      environmentSchema: jsonSchemaOf(DockerTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: dockerEnvironmentDriver,
    },
    probe: async (ctx) => {
      try {
        await pingEngine(engineEndpoint(ctx.config, ctx.credential, ctx.outbound), PROBE_TIMEOUT_MS, ctx.signal);
        return { status: 'succeeded' };
      } catch (error) {
        if (error instanceof EngineError) return { status: 'failed', message: `the engine answered ${error.status}` };
        return { status: 'failed', message: (error as Error).message };
      }
    },
  }),
);
// The hosted sandboxes E2B, Daytona and Modal register in their own modules (./environments/e2b.ts,
// daytona.ts, modal.ts).

// The local type runs environments on the service's own machine (a directory under DATA_DIR and real
// subprocesses, ./environments/local.ts): offered only where the deployment sets ALLOW_LOCAL_ENVIRONMENTS.

registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'local',
    title: 'Local machine (development only)',
    configuration: NoConfiguration,
    credential: NoCredential,
    credentialRequired: false,
    offeredWhen: (deployment) => deployment.allowLocalEnvironments,
    environment: {
      environmentSchema: jsonSchemaOf(LocalTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: localEnvironmentDriver,
    },
  }),
);

// Paired devices (the envd daemon on a user's own machine, ./environments/envd.ts): the instance is
// a directory on the device, reached over the device's websocket. Nothing to configure on the
// provider and no credential: the device's own pairing is the credential, and its daemon must opt in
// (serve --allow-environments). No probe: a provider test answers `unsupported`.
registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'envd',
    title: 'Paired device (envd daemon)',
    configuration: NoConfiguration,
    credential: NoCredential,
    credentialRequired: false,
    environment: {
      environmentSchema: jsonSchemaOf(EnvdTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: envdEnvironmentDriver,
      checkConfig: checkEnvdConfig,
    },
  }),
);

// ── connector: MCP servers ──
