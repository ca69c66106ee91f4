// The Kubernetes manifests (deploy/kubernetes) as kubectl renders them: the example overlay builds,
// and what it renders keeps the promises docs/deploying.md makes — probes on the health checks,
// non-root containers, disruption budgets, resources on every container, migrations as a Job, the
// worker autoscaler on the queue metric — and every resource it renders is valid against the
// Kubernetes API's schema of its kind (the kubernetes-models package's, generated from the API's
// OpenAPI document: required fields and types; it does not refuse unknown fields).
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const root = fileURLToPath(new URL('../..', import.meta.url));
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const kubectlMissing = kubectl.error !== undefined || kubectl.status !== 0;

interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}

function render(path: string): Resource[] {
  const text = execFileSync('kubectl', ['kustomize', path], { cwd: root, encoding: 'utf8' });
  return parseAllDocuments(text).map((document) => document.toJS() as Resource);
}

function one(resources: Resource[], kind: string, name: string): Resource {
  const found = resources.filter((resource) => resource.kind === kind && resource.metadata.name === name);
  expect(found, `${kind}/${name}`).toHaveLength(1);
  return found[0]!;
}

const mapValues = (record: Record<string, string>, map: (value: string) => string) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

function podSpec(resource: Resource): any {
  return resource.spec.template.spec;
}

describe.skipIf(kubectlMissing)('deploy/kubernetes (needs kubectl on PATH to render the kustomization)', () => {
  const resources = kubectlMissing ? [] : render('deploy/kubernetes/overlays/example');
  const api = kubectlMissing ? null : one(resources, 'Deployment', 'wsa-api');
  const worker = kubectlMissing ? null : one(resources, 'Deployment', 'wsa-worker');
  const migrate = kubectlMissing ? null : one(resources, 'Job', 'wsa-migrate');
  const workloads = [api, worker, migrate] as Resource[];

  it('renders only resources the Kubernetes API schemas accept', async () => {
    const kinds: string[] = [];
    for (const resource of resources) {
      // kubernetes-models/<group>/<version> (the core group is `v1`) exports one class per kind.
      const group = (await import(`kubernetes-models/${resource.apiVersion}`)) as Record<
        string,
        new (data: unknown) => { validate(): void }
      >;
      const Model = group[resource.kind];
      expect(Model, `${resource.apiVersion} ${resource.kind}`).toBeDefined();
      // kustomize folds long base64 values of a Secret over lines; the API's decoder skips the line
      // breaks, the schema's `byte` format does not.
      const data = resource.kind === 'Secret' ? { data: mapValues(resource.data ?? {}, (value) => value.replace(/\s/g, '')) } : {};
      expect(() => new Model!({ ...resource, ...data }).validate(), `${resource.kind}/${resource.metadata.name}`).not.toThrow();
      kinds.push(resource.kind);
    }
    expect(new Set(kinds)).toEqual(
      new Set(['Namespace', 'ConfigMap', 'Secret', 'Service', 'Deployment', 'Job', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']),
    );
    // The validator does refuse what the API would: a probe whose port is missing.
    const broken = structuredClone(one(resources, 'Deployment', 'wsa-api'));
    delete podSpec(broken).containers[0].readinessProbe.httpGet.port;
    const { Deployment } = await import('kubernetes-models/apps/v1');
    expect(() => new Deployment(broken as never).validate()).toThrow(/port/);
  });

  it('puts everything in the overlay namespace, on the overlay image', () => {
    for (const resource of resources) if (resource.kind !== 'Namespace') expect(resource.metadata.namespace, resource.kind).toBe('agents');
    for (const workload of workloads)
      for (const container of podSpec(workload).containers)
        expect(container.image).toBe('registry.example.com/workspace-agent-service:0.1.0');
  });

  it('probes the API: started and alive on /healthz, ready on /readyz', () => {
    const [container] = podSpec(api!).containers;
    expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.ports).toContainEqual({ name: 'http', containerPort: 8080 });
    const service = one(resources, 'Service', 'wsa-api');
    expect(service.spec.ports[0].targetPort).toBe('http');
    expect(service.spec.selector).toEqual(api!.spec.selector.matchLabels);
  });

  it('runs every container as the image user, not root, without privileges, with resources set', () => {
    for (const workload of workloads) {
      const spec = podSpec(workload);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      for (const container of spec.containers) {
        expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
        for (const amount of ['requests', 'limits']) {
          expect(container.resources[amount]?.cpu, `${workload.metadata.name} ${amount}.cpu`).toBeTruthy();
          expect(container.resources[amount]?.memory, `${workload.metadata.name} ${amount}.memory`).toBeTruthy();
        }
        // Every process reads the same settings and secrets.
        expect(container.envFrom.map((source: any) => source.configMapRef?.name ?? source.secretRef?.name)).toEqual([
          'wsa-config',
          one(resources, 'Secret', container.envFrom[1].secretRef.name).metadata.name,
        ]);
      }
    }
    expect(podSpec(worker!).containers[0].resources.limits.memory).toBe('2Gi'); // the overlay's patch
  });

  it('keeps the roles apart: API without workers, workers on their own entry point, migrations as a Job', () => {
    const env = (resource: Resource) =>
      Object.fromEntries(podSpec(resource).containers[0].env.map((variable: any) => [variable.name, variable.value]));
    expect(env(api!).RUN_WORKERS).toBe('0');
    expect(podSpec(api!).containers[0].args).toEqual(['dist/src/server.js']);
    expect(podSpec(worker!).containers[0].args).toEqual(['dist/src/worker.js']);
    expect(Number(env(worker!).RUN_WORKERS)).toBeGreaterThan(0);
    // A worker must be given longer than its grace period plus the service's 15 s forced-exit margin.
    expect(podSpec(worker!).terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(env(worker!).SHUTDOWN_GRACE_MS) + 15_000);
    expect(podSpec(migrate!).containers[0].args).toEqual(['dist/src/db-cli.js', 'migrate']);
    expect(podSpec(migrate!).restartPolicy).toBe('Never');
  });

  it('has a disruption budget for each Deployment, selecting its Pods', () => {
    const budgets = resources.filter((resource) => resource.kind === 'PodDisruptionBudget');
    for (const deployment of [api!, worker!]) {
      const labels = deployment.spec.template.metadata.labels;
      const covering = budgets.filter((budget) =>
        Object.entries(budget.spec.selector.matchLabels).every(([key, value]) => labels[key] === value),
      );
      expect(covering, deployment.metadata.name).toHaveLength(1);
    }
    expect(one(resources, 'PodDisruptionBudget', 'wsa-api').spec.minAvailable).toBe(1);
  });

  it('scales the workers on the external metric wsa_runs_queued', () => {
    const hpa = one(resources, 'HorizontalPodAutoscaler', 'wsa-worker');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'wsa-worker' });
    expect(hpa.spec.metrics).toEqual([
      { type: 'External', external: { metric: { name: 'wsa_runs_queued' }, target: { type: 'AverageValue', averageValue: '4' } } },
    ]);
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    // The autoscaler owns the count: one in the Deployment would reset its choice on every apply.
    expect(worker!.spec.replicas).toBeUndefined();
  });
});
