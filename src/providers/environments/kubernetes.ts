// The `kubernetes` environment type: an instance is a pod in the provider's namespace, made through
// the Kubernetes API from the template's image. Its one container makes the working directory and
// idles; commands run through the pod's `exec` subresource over a websocket (kubernetes-api.ts) and
// files through small shell commands run the same way (remote-shell.ts). Pods cannot be stopped and
// started again, so the type does not support stop; destroy deletes the pod.
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
} from '../environment-driver.js';
import Type from 'typebox';
import { defineProviderType, jsonSchemaOf, registerProviderType } from '../registry.js';
import { execStream, KubeError, kubeCall, type KubeTarget } from './kubernetes-api.js';
import { provisioningProblem, workProblem } from './control-plane.js';
import { workingDirectoryOf } from './instance-files.js';
import { remoteExec, remoteFiles, type RemoteTransport } from './remote-shell.js';
import { idleProcess } from './shell-commands.js';
import { environmentDocuments, imageTemplateSchema } from './template-schema.js';

export const KUBERNETES_DEFAULT_WORKING_DIRECTORY = '/workspace';
const DEFAULT_NAMESPACE = 'default';
/** The pod's one container. */
export const CONTAINER_NAME = 'workspace';
/** The label that names the environment a pod was made for. */
export const ENVIRONMENT_LABEL = 'workspace-agent-service/environment-id';
const API_TIMEOUT_MS = 60_000;
/** Provisioning waits at most this long for the pod to run (an image pull included). */
const RUNNING_TIMEOUT_MS = 5 * 60_000;
/** How often the pod's phase is read while waiting. */
const POLL_MS = 500;
/** Waiting reasons that will not resolve by themselves: provisioning fails at once with them. */
const HOPELESS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'ErrImageNeverPull',
]);

interface Pod {
  metadata?: { name?: string; namespace?: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    containerStatuses?: {
      name: string;
      state?: { waiting?: { reason?: string; message?: string }; running?: unknown; terminated?: { reason?: string; exitCode?: number } };
    }[];
  };
}

/** The Kubernetes provider's config: the API server and the namespace pods are made in. */
const KubernetesConfig = Type.Object(
  {
    server: Type.String({ format: 'uri', pattern: '^https?://', description: 'the API server, e.g. https://10.0.0.1:6443' }),
    namespace: Type.Optional(
      Type.String({ pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$', description: 'the namespace pods are made in (default "default")' }),
    ),
  },
  { additionalProperties: false },
);
/** Its credential: a bearer token, or a client certificate with its key. */
const KubernetesCredential = Type.Object(
  {
    token: Type.Optional(Type.String({ minLength: 1, writeOnly: true, description: 'a bearer token (e.g. a service account token)' })),
    ca: Type.Optional(Type.String({ description: "PEM of the cluster's certificate authority" })),
    client_cert: Type.Optional(Type.String({ description: 'PEM of a client certificate' })),
    client_key: Type.Optional(Type.String({ writeOnly: true, description: "PEM of the client certificate's key" })),
  },
  { anyOf: [{ required: ['token'] }, { required: ['client_cert', 'client_key'] }], additionalProperties: false },
);
const KubernetesTemplate = imageTemplateSchema(
  {
    image: 'the image of the pod’s container, e.g. alpine:3.20',
    workingDirectory: 'an absolute path inside the container where commands start (default /workspace; made when the pod starts)',
    env: 'environment variables of the container and every command',
  },
  {
    cpu: Type.Optional(
      Type.Number({ description: 'CPUs the container may use (e.g. 1.5; its limit and request)', exclusiveMinimum: 0, maximum: 256 }),
    ),
    memory_mb: Type.Optional(Type.Integer({ description: 'memory limit (and request) in MiB', minimum: 6, maximum: 1048576 })),
  },
);
const documents = environmentDocuments({ configuration: KubernetesConfig, credential: KubernetesCredential, template: KubernetesTemplate });

function targetOf(ctx: EnvironmentDriverContext): KubeTarget {
  const credential = documents.credential(ctx);
  return {
    server: documents.config(ctx).server,
    token: credential?.token,
    ca: credential?.ca,
    cert: credential?.client_cert,
    key: credential?.client_key,
    outbound: ctx.outbound,
  };
}

const namespaceOf = (ctx: EnvironmentDriverContext) => documents.config(ctx).namespace || DEFAULT_NAMESPACE;
/** Pod names are DNS labels: the environment's id in lower case. */
const podName = (environmentId: string) => `wsa-${environmentId.toLowerCase().replace(/_/g, '-')}`;

/**
 * The pod an instance names (`namespace/name`), or — for an environment whose provisioning failed
 * before it was recorded (the service then passes the environment's id) — the one named for it.
 */
function podOf(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): { namespace: string; name: string } {
  const slash = instance.instanceId.indexOf('/');
  if (slash > 0) return { namespace: instance.instanceId.slice(0, slash), name: instance.instanceId.slice(slash + 1) };
  return { namespace: namespaceOf(ctx), name: podName(instance.instanceId) };
}

const podPath = (namespace: string, name?: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods${name ? `/${encodeURIComponent(name)}` : ''}`;

/** A problem during work: a 404 means the pod is gone. */
function apiProblem(error: unknown): never {
  return workProblem(error, 'pod');
}

/** Why a pod will never run, or null while it may still. */
function hopeless(pod: Pod): string | null {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded')
    return `the pod ended (${phase}${pod.status?.reason ? `: ${pod.status.reason}` : ''}${pod.status?.message ? `: ${pod.status.message}` : ''})`;
  for (const container of pod.status?.containerStatuses ?? []) {
    const waiting = container.state?.waiting;
    if (waiting?.reason && HOPELESS.has(waiting.reason))
      return `the pod cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
    if (container.state?.terminated)
      return `the pod's container ended (${container.state.terminated.reason ?? `exit code ${container.state.terminated.exitCode}`})`;
  }
  return null;
}

async function waitUntilRunning(target: KubeTarget, namespace: string, name: string, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + RUNNING_TIMEOUT_MS;
  for (;;) {
    const pod = await kubeCall<Pod>(target, 'GET', podPath(namespace, name), { timeoutMs: API_TIMEOUT_MS, signal });
    const problem = hopeless(pod);
    if (problem) throw new Error(problem);
    const running = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME)?.state?.running;
    if (pod.status?.phase === 'Running' && running) return;
    if (Date.now() > deadline)
      throw new Error(`the pod was not running after ${RUNNING_TIMEOUT_MS / 1000} seconds (phase ${pod.status?.phase ?? 'unknown'})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function transport(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): RemoteTransport {
  const target = targetOf(ctx);
  const pod = podOf(ctx, instance);
  return async (run) => {
    // The older v4 protocol cannot end standard input: a command with input reads exactly its bytes
    // through `head -c`, which ends the command's input (v5 also gets the close frame).
    const command =
      run.stdin !== undefined
        ? ['/bin/sh', '-c', 'n=$1; shift; head -c "$n" | "$@"', 'wsa-stdin', String(run.stdin.length), ...run.argv]
        : run.argv;
    try {
      const result = await execStream(target, {
        namespace: pod.namespace,
        pod: pod.name,
        container: CONTAINER_NAME,
        command,
        stdin: run.stdin,
        signal: run.signal,
        onChunk: run.onChunk,
      });
      if (result.failure) throw new EnvironmentDriverError('unavailable', `the pod could not run the command: ${result.failure}`);
      // A stream that ended without the command's status was cut (the API server or the node went away).
      if (result.exitCode === null && !run.signal.aborted)
        throw new EnvironmentDriverError('unavailable', 'the exec stream ended before the command reported how it ended');
      return { exitCode: result.exitCode };
    } catch (error) {
      if (run.signal.aborted) return { exitCode: null };
      apiProblem(error);
    }
  };
}

export const kubernetesEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const target = targetOf(ctx);
    const config = documents.template(request.config);
    const image = config.image;
    const workingDirectory = workingDirectoryOf(config, KUBERNETES_DEFAULT_WORKING_DIRECTORY);
    const namespace = namespaceOf(ctx);
    const name = podName(request.environmentId);
    const { cpu, memory_mb: memoryMb } = config;
    const limits = {
      ...(cpu !== undefined ? { cpu: `${Math.round(cpu * 1000)}m` } : {}),
      ...(memoryMb !== undefined ? { memory: `${memoryMb}Mi` } : {}),
    };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        labels: { 'app.kubernetes.io/managed-by': 'workspace-agent-service', [ENVIRONMENT_LABEL]: request.environmentId },
      },
      spec: {
        restartPolicy: 'Never',
        // Commands in the pod get no token for the cluster they run in.
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 5,
        containers: [
          {
            name: CONTAINER_NAME,
            image,
            command: idleProcess(workingDirectory),
            workingDir: workingDirectory,
            env: Object.entries(config.env ?? {}).map(([key, value]) => ({ name: key, value })),
            ...(Object.keys(limits).length ? { resources: { limits, requests: limits } } : {}),
          },
        ],
      },
    };
    try {
      await kubeCall(target, 'POST', podPath(namespace), { body: pod, timeoutMs: API_TIMEOUT_MS, signal: request.signal }).catch(
        (error: unknown) => {
          // Provisioned before (idempotent per environment id): the pod already has the name.
          if (!(error instanceof KubeError && error.status === 409)) throw error;
        },
      );
      await waitUntilRunning(target, namespace, name, request.signal);
    } catch (error) {
      provisioningProblem(error);
    }
    return { instanceId: `${namespace}/${name}`, workingDirectory };
  },
  exec: (ctx, instance, request) => remoteExec(transport(ctx, instance), instance.workingDirectory, request),
  ...remoteFiles(transport),
  stop() {
    return Promise.reject(
      new EnvironmentDriverError('unavailable', 'a pod cannot be stopped and started again: destroy the environment instead'),
    );
  },
  async destroy(ctx, instance) {
    const { namespace, name } = podOf(ctx, instance);
    await kubeCall(targetOf(ctx), 'DELETE', podPath(namespace, name), {
      query: { gracePeriodSeconds: '0' },
      timeoutMs: API_TIMEOUT_MS,
    }).catch((error: unknown) => {
      // Gone already counts as destroyed.
      if (!(error instanceof KubeError && error.status === 404)) apiProblem(error);
    });
  },
};

registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'kubernetes',
    title: 'Kubernetes pods',
    configuration: KubernetesConfig,
    credential: KubernetesCredential,
    credentialRequired: true,
    // Where a service account token for the namespace is made.
    setupUrl: 'https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/',
    endpointFields: ['server'],
    environment: {
      environmentSchema: jsonSchemaOf(KubernetesTemplate),
      managedInstances: true,
      stop: false,
      destroy: true,
      driver: kubernetesEnvironmentDriver,
    },
  }),
);
