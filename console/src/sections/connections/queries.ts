// The shapes the connections pages read, derived from the types generated for
// console/src/graphql/connections.graphql (the pages import the documents themselves from console/generated).
import type { ConnectionViewFragment, ConsoleConnectionsQueryVariables } from '../../../generated/graphql';

export type ConnectionView = ConnectionViewFragment;

export type ConnectionFilters = ConsoleConnectionsQueryVariables;
