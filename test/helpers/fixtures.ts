// Resources tests need before the part they test. Models are made through the public API, as a client
// would; environment templates have no API yet, so their rows (and connections for reference checks) are inserted directly.
import type { RestResponse, TestApp } from './app.js';
import { createApiKey } from '../../src/features/access/admin.js';
import { newId } from '../../src/lib/ids.js';

/** An API key of `workspaceId` (the test app's own key for its workspace), minted once per workspace as the operator CLI does. */
const workspaceKeys = new WeakMap<TestApp, Map<string, Promise<string>>>();
function keyFor(t: TestApp, workspaceId: string): Promise<string> {
  if (workspaceId === t.workspaceId) return Promise.resolve(t.apiKey);
  let keys = workspaceKeys.get(t);
  if (!keys) workspaceKeys.set(t, (keys = new Map()));
  let key = keys.get(workspaceId);
  if (!key) {
    key = createApiKey(t.app.deps, { workspaceId, permissions: 'read,write', name: 'test fixtures' }).then((created) => created.token);
    keys.set(workspaceId, key);
  }
  return key;
}

function expectOk(what: string, response: RestResponse): RestResponse {
  if (response.status >= 300) throw new Error(`fixture: ${what} answered ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

/**
 * A model `key` on its own offline `development` provider (model `echo`), created with
 * POST /api/v1/model-providers and POST /api/v1/models. `enabled: false` / `providerEnabled: false`
 * then disable the model / its provider with PATCH and If-Match, as a client would.
 */
export async function insertModel(
  t: TestApp,
  key: string,
  options: { workspaceId?: string; enabled?: boolean; providerEnabled?: boolean } = {},
): Promise<{ key: string; providerId: string }> {
  const token = await keyFor(t, options.workspaceId ?? t.workspaceId);
  const provider = expectOk(
    'create provider',
    await t.rest('POST', '/api/v1/model-providers', { token, body: { type: 'development', name: `provider for ${key}` } }),
  );
  const model = expectOk(
    'create model',
    await t.rest('POST', '/api/v1/models', { token, body: { key, provider_id: provider.body.id, provider_model: 'echo' } }),
  );
  if (options.enabled === false) {
    expectOk(
      'disable model',
      await t.rest('PATCH', `/api/v1/models/${encodeURIComponent(key)}`, {
        token,
        headers: { 'If-Match': model.headers.get('etag')! },
        body: { enabled: false },
      }),
    );
  }
  if (options.providerEnabled === false) {
    expectOk(
      'disable provider',
      await t.rest('PATCH', `/api/v1/model-providers/${provider.body.id}`, {
        token,
        headers: { 'If-Match': provider.headers.get('etag')! },
        body: { enabled: false },
      }),
    );
  }
  return { key: model.body.key, providerId: provider.body.id };
}

export async function insertWorkspaceResource(
  t: TestApp,
  kind: 'connection' | 'environmentTemplate',
  workspaceId = t.workspaceId,
): Promise<string> {
  const db = t.app.deps.db;
  const common = { workspaceId, name: `${kind} fixture`, createdById: 'test', updatedById: 'test', providerId: 'prv_fixture' };
  if (kind === 'connection') return (await db.connection.create({ data: { id: newId('connection'), ...common } })).id;
  return (await db.environmentTemplate.create({ data: { id: newId('environmentTemplate'), ...common } })).id;
}
