// The GraphQL documents of the environments pages, with the answers they are read as.
import { gql } from '../../api';

export type EnvironmentStatus = 'provisioning' | 'ready' | 'failed' | 'stopped' | 'destroyed';
export const ENVIRONMENT_STATUSES: EnvironmentStatus[] = ['provisioning', 'ready', 'failed', 'stopped', 'destroyed'];

export interface TemplateView {
  id: string;
  name: string;
  description: string;
  providerId: string;
  provider: { id: string; name: string; type: string };
  config: Record<string, unknown>;
  enabled: boolean;
  labels: Record<string, string>;
  labelList: { key: string; value: string }[];
  etag: string;
  version: number;
  updatedAt: string;
}

const TEMPLATE_FIELDS = `id name description providerId provider { id name type } config enabled labels labelList { key value } etag version updatedAt`;

export interface EnvironmentView {
  id: string;
  name: string;
  status: EnvironmentStatus;
  templateId: string | null;
  template: { id: string; name: string } | null;
  provider: { id: string; name: string; type: string };
  instanceId: string | null;
  workingDirectory: string | null;
  failureMessage: string | null;
  config: Record<string, unknown>;
  labelList: { key: string; value: string }[];
  runIds: string[];
  version: number;
  createdAt: string;
  updatedAt: string;
  destroyedAt: string | null;
}

const ENVIRONMENT_FIELDS = `id name status templateId template { id name } provider { id name type } instanceId workingDirectory
  failureMessage config labelList { key value } runIds version createdAt updatedAt destroyedAt`;

interface Page<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export const TEMPLATES = gql<{ environmentTemplates: Page<TemplateView> }, { first: number; after?: string; enabled?: boolean }>(
  `query ConsoleEnvironmentTemplates($first: Int, $after: String, $enabled: Boolean) {
    environmentTemplates(first: $first, after: $after, enabled: $enabled) { nodes { ${TEMPLATE_FIELDS} } pageInfo { hasNextPage endCursor } }
  }`,
);

export const TEMPLATE = gql<{ environmentTemplate: TemplateView }, { id: string }>(
  `query ConsoleEnvironmentTemplate($id: ID!) { environmentTemplate(id: $id) { ${TEMPLATE_FIELDS} } }`,
);

/** The workspace's environment providers, and what each type's template config looks like. */
export const ENVIRONMENT_PROVIDERS = gql<{
  providers: { nodes: { id: string; name: string; type: string; enabled: boolean }[] };
  providerTypes: { type: string; title: string; environmentSchema?: unknown; supportsStart?: boolean; supportsStop?: boolean }[];
}>(`query ConsoleEnvironmentProviders {
  providers(kind: "environment", first: 100) { nodes { id name type enabled } }
  providerTypes(kind: "environment") { type title ... on EnvironmentProviderType { environmentSchema supportsStart supportsStop } }
}`);

export const CREATE_TEMPLATE = gql<
  { createEnvironmentTemplate: { environmentTemplate: { id: string } } },
  { input: Record<string, unknown> }
>(
  `mutation ConsoleCreateEnvironmentTemplate($input: EnvironmentTemplateInput!) {
    createEnvironmentTemplate(input: $input) { environmentTemplate { id } }
  }`,
);

export const UPDATE_TEMPLATE = gql<
  { updateEnvironmentTemplate: { environmentTemplate: TemplateView } },
  { id: string; ifMatch: string; input: Record<string, unknown> }
>(`mutation ConsoleUpdateEnvironmentTemplate($id: ID!, $ifMatch: String, $input: EnvironmentTemplateInput!) {
  updateEnvironmentTemplate(id: $id, ifMatch: $ifMatch, input: $input) { environmentTemplate { ${TEMPLATE_FIELDS} } }
}`);

export const ENVIRONMENTS = gql<
  { environments: Page<EnvironmentView> },
  { first: number; after?: string; status?: EnvironmentStatus; templateId?: string }
>(`query ConsoleEnvironments($first: Int, $after: String, $status: EnvironmentStatus, $templateId: String) {
  environments(first: $first, after: $after, status: $status, templateId: $templateId) { nodes { ${ENVIRONMENT_FIELDS} } pageInfo { hasNextPage endCursor } }
}`);

export const ENVIRONMENT = gql<{ environment: EnvironmentView }, { id: string }>(
  `query ConsoleEnvironment($id: ID!) { environment(id: $id) { ${ENVIRONMENT_FIELDS} } }`,
);

export const CREATE_ENVIRONMENT = gql<
  { createEnvironment: { environment: { id: string; status: EnvironmentStatus } } },
  { input: { templateId: string; name?: string; labels?: Record<string, string> } }
>(`mutation ConsoleCreateEnvironment($input: CreateEnvironmentInput!) { createEnvironment(input: $input) { environment { id status } } }`);

export const START_ENVIRONMENT = gql<{ startEnvironment: { environment: { id: string; status: EnvironmentStatus } } }, { id: string }>(
  `mutation ConsoleStartEnvironment($id: ID!) { startEnvironment(id: $id) { environment { id status } } }`,
);
export const STOP_ENVIRONMENT = gql<{ stopEnvironment: { environment: { id: string; status: EnvironmentStatus } } }, { id: string }>(
  `mutation ConsoleStopEnvironment($id: ID!) { stopEnvironment(id: $id) { environment { id status } } }`,
);
export const DESTROY_ENVIRONMENT = gql<{ destroyEnvironment: { environment: { id: string; status: EnvironmentStatus } } }, { id: string }>(
  `mutation ConsoleDestroyEnvironment($id: ID!) { destroyEnvironment(id: $id) { environment { id status } } }`,
);
