// @workspace-agent-service/client: typed operations generated from the service's schema.graphql, the
// transport that runs them (HTTP for queries and mutations, graphql-ws for subscriptions) and
// convenience calls for the common workflows.
import { createTransport, type ClientOptions, type GraphQLClient } from './client.js';
import { workflows, type Workflows } from './workflows.js';

export type Client = GraphQLClient & Workflows;

/**
 * A client of one service and credential. `query`/`mutate`/`subscribe` take any typed document (the
 * generated `…Document`s, or your own); the other methods are the common workflows.
 */
export function createClient(options: ClientOptions): Client {
  const transport = createTransport(options);
  return { ...transport, ...workflows(transport) };
}

export { graphqlEndpoint, type ClientOptions, type GraphQLClient, type VariablesArg } from './client.js';
export { ServiceError, isServiceError, type GraphQLErrorBody, type ServiceErrorCode } from './errors.js';
export * from './workflows.js';
export * from './generated.js';
