// Environment provider types of the first catalogue: the container engine, the service's own machine
// and a paired device. The spec makes every environment type's test `unsupported` except the container
// engine's (which only pings); the hosted sandboxes register themselves from ./environments.
import { PROBE_TIMEOUT_MS } from './http-probe.js';
import { registerProviderType, type JsonSchema, type ProbeResult, type ProviderContext } from './registry.js';
import { noConfiguration, noCredential } from './common-schemas.js';
import { localEnvironmentDriver } from './environments/local.js';
import { dockerEnvironmentDriver } from './environments/docker.js';
import { EngineError, pingEngine } from './environments/docker-engine.js';
import { checkEnvdConfig, envdEnvironmentDriver } from './environments/envd.js';
import { imageTemplateSchema } from './environments/template-schema.js';

async function dockerPing(ctx: ProviderContext): Promise<ProbeResult> {
  const credential = ctx.credential ?? {};
  try {
    await pingEngine(
      {
        endpoint: String(ctx.config.endpoint),
        tls: {
          ca: credential.tls_ca as string | undefined,
          cert: credential.tls_cert as string | undefined,
          key: credential.tls_key as string | undefined,
        },
      },
      PROBE_TIMEOUT_MS,
      ctx.signal,
    );
    return { status: 'succeeded' };
  } catch (error) {
    if (error instanceof EngineError) return { status: 'failed', message: `the engine answered ${error.status}` };
    return { status: 'failed', message: (error as Error).message };
  }
}
// The container engine's template config. Members are ordered so the type's description only grows
// (the REST golden file compares it member by member).
const dockerEnvironmentSchema: JsonSchema = imageTemplateSchema(
  {
    image: 'the image the container starts from (pulled when the engine does not have it), e.g. alpine:3.20',
    workingDirectory: 'an absolute path inside the container where commands start (default /workspace; created by the engine)',
    env: 'environment variables of the container and every command',
  },
  {
    cpu: { description: 'CPUs the container may use (e.g. 1.5)', exclusiveMinimum: 0, maximum: 256, type: 'number' },
    memory_mb: { description: 'memory limit in MiB', minimum: 6, maximum: 1048576, type: 'integer' },
  },
);
registerProviderType({
  kind: 'environment',
  type: 'docker',
  title: 'Container engine (Docker Engine API)',
  configurationSchema: {
    type: 'object',
    properties: { endpoint: { type: 'string', pattern: '^(unix://|https?://|tcp://)' } },
    required: ['endpoint'],
    additionalProperties: false,
  },
  credentialSchema: {
    type: 'object',
    properties: { tls_ca: { type: 'string' }, tls_cert: { type: 'string' }, tls_key: { type: 'string', writeOnly: true } },
    additionalProperties: false,
  },
  credentialRequired: false,
  endpointFields: ['endpoint'],
  environment: {
    environmentSchema: dockerEnvironmentSchema,
    managedInstances: true,
    stop: true,
    destroy: true,
    driver: dockerEnvironmentDriver,
  },
  probe: dockerPing,
});
// The hosted sandboxes E2B, Daytona and Modal register in their own modules (./environments/e2b.ts,
// daytona.ts, modal.ts).

// The local type runs environments on the service's own machine (a directory under DATA_DIR and real
// subprocesses, ./environments/local.ts): offered only where the deployment sets ALLOW_LOCAL_ENVIRONMENTS.
registerProviderType({
  kind: 'environment',
  type: 'local',
  title: 'Local machine (development only)',
  configurationSchema: noConfiguration,
  credentialSchema: noCredential,
  credentialRequired: false,
  offeredWhen: (deployment) => deployment.allowLocalEnvironments,
  environment: {
    environmentSchema: {
      type: 'object',
      properties: {
        working_directory: {
          type: 'string',
          maxLength: 1024,
          description: "a relative subdirectory of the environment's directory where commands start (created on provisioning)",
        },
        env: {
          type: 'object',
          maxProperties: 100,
          additionalProperties: { type: 'string', maxLength: 32768 },
          description: "environment variables of every command (the service's own are never passed on)",
        },
      },
      additionalProperties: false,
    },
    managedInstances: true,
    stop: true,
    destroy: true,
    driver: localEnvironmentDriver,
  },
});

// Paired devices (the envd daemon on a user's own machine, ./environments/envd.ts): the instance is
// a directory on the device, reached over the device's websocket. Nothing to configure on the
// provider and no credential: the device's own pairing is the credential, and its daemon must opt in
// (serve --allow-environments). No probe: a provider test answers `unsupported`.
registerProviderType({
  kind: 'environment',
  type: 'envd',
  title: 'Paired device (envd daemon)',
  configurationSchema: noConfiguration,
  credentialSchema: noCredential,
  credentialRequired: false,
  environment: {
    environmentSchema: {
      type: 'object',
      required: ['device_id', 'root'],
      additionalProperties: false,
      properties: {
        device_id: {
          description: 'a paired device of the workspace (dev_…) whose daemon runs with --allow-environments',
          pattern: '^dev_[A-Za-z0-9]{1,64}$',
          type: 'string',
        },
        root: {
          description:
            "an absolute directory on the device inside the daemon's roots; each environment gets its own directory .wsa-environments/<environment id> under it",
          maxLength: 4096,
          pattern: '^/',
          type: 'string',
        },
        working_directory: {
          description: "a relative subdirectory of the environment's directory where commands start (created on provisioning)",
          maxLength: 1024,
          type: 'string',
        },
        env: {
          description: "environment variables of every command (the daemon's own are never passed on)",
          maxProperties: 100,
          type: 'object',
          additionalProperties: { type: 'string', maxLength: 32768 },
        },
      },
    },
    managedInstances: true,
    stop: true,
    destroy: true,
    driver: envdEnvironmentDriver,
    checkConfig: checkEnvdConfig,
  },
});

// ── connector: MCP servers ──
