// The GraphQL documents of the connections pages, with the answers they are read as.
import { gql } from '../../api';

export interface ConnectionView {
  id: string;
  name: string;
  description: string;
  providerId: string;
  config: Record<string, unknown>;
  enabled: boolean;
  credentialConfigured: boolean;
  labels: Record<string, string>;
  labelList: { key: string; value: string }[];
  etag: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  createdById: string;
  updatedById: string;
}

const FIELDS = `id name description providerId config enabled credentialConfigured labels labelList { key value }
  etag version createdAt updatedAt createdById updatedById`;

export interface ConnectionFilters {
  q?: string;
  enabled?: boolean;
  providerId?: string;
  first: number;
  after?: string;
}

export const CONNECTIONS = gql<
  { connections: { nodes: ConnectionView[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } },
  ConnectionFilters
>(`query ConsoleConnections($q: String, $enabled: Boolean, $providerId: String, $first: Int, $after: String) {
  connections(q: $q, enabled: $enabled, providerId: $providerId, first: $first, after: $after) {
    nodes { ${FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`);

/** The workspace's connector providers: a connection belongs to one. */
export const CONNECTOR_PROVIDERS = gql<{ providers: { nodes: { id: string; name: string; type: string; enabled: boolean }[] } }>(
  `query ConsoleConnectorProviders { providers(kind: "connector", first: 100) { nodes { id name type enabled } } }`,
);

export const CONNECTION = gql<{ connection: ConnectionView }, { id: string }>(
  `query ConsoleConnection($id: ID!) { connection(id: $id) { ${FIELDS} } }`,
);

export const CREATE_CONNECTION = gql<{ createConnection: { connection: { id: string } } }, { input: Record<string, unknown> }>(
  `mutation ConsoleCreateConnection($input: CreateConnectionInput!) { createConnection(input: $input) { connection { id } } }`,
);

export const UPDATE_CONNECTION = gql<
  { updateConnection: { connection: ConnectionView } },
  { id: string; ifMatch: string; input: Record<string, unknown> }
>(`mutation ConsoleUpdateConnection($id: ID!, $ifMatch: String, $input: UpdateConnectionInput!) {
  updateConnection(id: $id, ifMatch: $ifMatch, input: $input) { connection { ${FIELDS} } }
}`);

export const REVOKE_CONNECTION = gql<{ revokeConnection: { connection: ConnectionView } }, { id: string; ifMatch: string }>(
  `mutation ConsoleRevokeConnection($id: ID!, $ifMatch: String) { revokeConnection(id: $id, ifMatch: $ifMatch) { connection { ${FIELDS} } } }`,
);

export const TEST_CONNECTION = gql<
  { testConnection: { status: string; message: string | null; toolCount: number | null } },
  { id: string }
>(`mutation ConsoleTestConnection($id: ID!) { testConnection(id: $id) { status message toolCount } }`);
