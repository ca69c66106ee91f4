// The GraphQL documents of the models pages (model providers, their types, models), with the answers
// they are read as.
import { gql } from '../../api';

export interface ProviderView {
  id: string;
  type: string;
  name: string;
  description: string;
  config: Record<string, unknown>;
  enabled: boolean;
  credentialConfigured: boolean;
  extraHeadersConfigured: boolean;
  labels: Record<string, string>;
  labelList: { key: string; value: string }[];
  etag: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedById: string;
}

const PROVIDER_FIELDS = `id type name description config enabled credentialConfigured extraHeadersConfigured labels
  labelList { key value } etag version createdAt updatedAt updatedById`;

export interface ProviderTypeView {
  type: string;
  title: string;
  setupUrl: string | null;
  testSupported: boolean;
  credentialRequired: boolean;
  configurationSchema: JsonSchema;
  credentialSchema: JsonSchema;
  embeddingsSupported?: boolean;
  modelApis?: ModelApiView[];
}

/** One model API of a model provider type, with the JSON Schema of the settings it reads. */
export interface ModelApiView {
  api: string;
  settingsSchema?: JsonSchema;
}

/** The little of a JSON Schema document the forms read: its members, which are required. */
export interface JsonSchema {
  properties?: Record<string, { description?: string; type?: string | string[] }>;
  required?: string[];
  [member: string]: unknown;
}

export const MODEL_PROVIDER_TYPES = gql<{ providerTypes: ProviderTypeView[] }>(`query ConsoleModelProviderTypes {
  providerTypes(kind: "model") {
    type title setupUrl testSupported credentialRequired configurationSchema credentialSchema
    ... on ModelProviderType { embeddingsSupported modelApis { api settingsSchema } }
  }
}`);

export const MODEL_PROVIDERS = gql<
  { providers: { nodes: ProviderView[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } },
  { first: number; after?: string }
>(`query ConsoleModelProviders($first: Int, $after: String) {
  providers(kind: "model", first: $first, after: $after) { nodes { ${PROVIDER_FIELDS} } pageInfo { hasNextPage endCursor } }
}`);

export const MODEL_PROVIDER = gql<{ provider: ProviderView }, { id: string }>(
  `query ConsoleModelProvider($id: ID!) { provider(id: $id, kind: "model") { ${PROVIDER_FIELDS} } }`,
);

export const CREATE_MODEL_PROVIDER = gql<{ createProvider: { provider: { id: string } } }, { input: Record<string, unknown> }>(
  `mutation ConsoleCreateModelProvider($input: CreateProviderInput!) { createProvider(kind: "model", input: $input) { provider { id } } }`,
);

export const UPDATE_MODEL_PROVIDER = gql<
  { updateProvider: { provider: ProviderView } },
  { id: string; ifMatch: string; input: Record<string, unknown> }
>(`mutation ConsoleUpdateModelProvider($id: ID!, $ifMatch: String, $input: UpdateProviderInput!) {
  updateProvider(id: $id, kind: "model", ifMatch: $ifMatch, input: $input) { provider { ${PROVIDER_FIELDS} } }
}`);

export const TEST_MODEL_PROVIDER = gql<{ testProvider: { status: string; message: string | null } }, { id: string }>(
  `mutation ConsoleTestModelProvider($id: ID!) { testProvider(id: $id, kind: "model") { status message } }`,
);

export interface ModelView {
  id: string;
  key: string;
  name: string;
  description: string;
  providerId: string;
  providerModel: string;
  api: string;
  settings: Record<string, unknown>;
  enabled: boolean;
  labelList: { key: string; value: string }[];
  etag: string;
  updatedAt: string;
}

const MODEL_FIELDS = `id key name description providerId providerModel api settings enabled labelList { key value } etag updatedAt`;

export interface ModelFilters {
  q?: string;
  enabled?: boolean;
  providerId?: string;
  first: number;
  after?: string;
}

export const MODELS = gql<
  { models: { nodes: ModelView[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } },
  ModelFilters
>(`query ConsoleModels($q: String, $enabled: Boolean, $providerId: String, $first: Int, $after: String) {
  models(q: $q, enabled: $enabled, providerId: $providerId, first: $first, after: $after) {
    nodes { ${MODEL_FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`);

export const CREATE_MODEL = gql<{ createModel: { model: { key: string } } }, { input: Record<string, unknown> }>(
  `mutation ConsoleCreateModel($input: ModelInput!) { createModel(input: $input) { model { key } } }`,
);

/** One model as its page shows it: the list's fields, its version and its provider. */
export interface ModelDetail extends ModelView {
  version: number;
  createdAt: string;
  updatedById: string;
  provider: { id: string; name: string; type: string; enabled: boolean };
}

export const MODEL = gql<{ model: ModelDetail }, { key: string }>(
  `query ConsoleModel($key: String!) {
  model(key: $key) { ${MODEL_FIELDS} version createdAt updatedById provider { id name type enabled } }
}`,
);

export const UPDATE_MODEL = gql<{ updateModel: { model: ModelView } }, { key: string; ifMatch: string; input: Record<string, unknown> }>(
  `mutation ConsoleUpdateModel($key: String!, $ifMatch: String, $input: ModelInput!) {
  updateModel(key: $key, ifMatch: $ifMatch, input: $input) { model { ${MODEL_FIELDS} } }
}`,
);
