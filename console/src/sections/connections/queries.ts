// The GraphQL documents of the connections pages, with the answers they are read as.
import {
  ConsoleConnectionDocument,
  ConsoleConnectionsDocument,
  ConsoleConnectorProvidersDocument,
  ConsoleCreateConnectionDocument,
  ConsoleRevokeConnectionDocument,
  ConsoleTestConnectionDocument,
  ConsoleUpdateConnectionDocument,
} from '../../../generated/graphql';
import type { ConnectionViewFragment, ConsoleConnectionsQueryVariables } from '../../../generated/graphql';

export type ConnectionView = ConnectionViewFragment;

export type ConnectionFilters = ConsoleConnectionsQueryVariables;

export const CONNECTIONS = ConsoleConnectionsDocument;

/** The workspace's connector providers: a connection belongs to one. */
export const CONNECTOR_PROVIDERS = ConsoleConnectorProvidersDocument;

export const CONNECTION = ConsoleConnectionDocument;

export const CREATE_CONNECTION = ConsoleCreateConnectionDocument;

export const UPDATE_CONNECTION = ConsoleUpdateConnectionDocument;

export const REVOKE_CONNECTION = ConsoleRevokeConnectionDocument;

export const TEST_CONNECTION = ConsoleTestConnectionDocument;
