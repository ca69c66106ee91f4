// Executes the protocol adapters' GraphQL documents (src/protocols/operations/*.graphql, as typed
// documents generated into src/generated/protocol-documents.ts) through Yoga's enveloped
// pipeline with the caller's own credentials, as the REST shim does: MCP, AG-UI and OpenAI-compatible
// callers get the same auth, permissions, tenancy, audit and error codes as every other surface, and no
// adapter reaches a service or the database itself. One runner for the three, so they cannot drift.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import * as protocolDocuments from '../generated/protocol-documents.js';
import type { RequestCredentials } from '../graphql/context.js';
import { v1ValidationRules } from '../graphql/json-variables.js';

export interface EnvelopedGraphQL {
  getEnveloped(initial: Record<string, unknown>): {
    schema: GraphQLSchema;
    contextFactory(): Promise<unknown> | unknown;
    execute(args: ExecutionArgs): unknown;
    subscribe(args: ExecutionArgs): unknown;
  };
}

interface ExecutionArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Record<string, unknown>;
  contextValue: unknown;
}

interface GraphQLResult<Data = unknown> {
  data?: Data | null;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** What an adapter reads of an HTTP request to name its caller (an Express request has it). */
interface CallerRequest {
  get(header: string): string | undefined;
  socket: { remoteAddress?: string };
}

/** The credentials an adapter's request carries, as the REST shim reads them from its own requests. */
export function requestCredentials(req: CallerRequest): RequestCredentials {
  return {
    authorization: req.get('authorization') ?? null,
    workspaceHeader: req.get('x-workspace-id') ?? null,
    requestId: req.get('x-request-id') ?? null,
    clientAddress: req.socket.remoteAddress ?? 'unknown',
  };
}

/** A service error as an operation answered it (`extensions.code` of its first error). */
export class OperationProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    // Branded by name: `instanceof` is unreliable across the test runner's module graph.
    this.name = 'OperationProblem';
  }
}

export const isOperationProblem = (error: unknown): error is OperationProblem =>
  typeof error === 'object' && error !== null && (error as { name?: string }).name === 'OperationProblem';

function problemOf(error: { message: string; extensions?: Record<string, unknown> }): OperationProblem {
  const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'internal';
  return new OperationProblem(code, error.message, error.extensions?.details as Record<string, unknown> | undefined);
}

export interface OperationRunner {
  /** The operation's answer, typed by its document; a refused operation throws an OperationProblem. */
  execute<Data, Variables>(
    credentials: RequestCredentials,
    document: TypedDocumentNode<Data, Variables>,
    variables: Variables,
  ): Promise<Data>;
  /** A subscription's events (data of each), ended by `signal`; a refused subscription throws. */
  subscribe<Data, Variables>(
    credentials: RequestCredentials,
    document: TypedDocumentNode<Data, Variables>,
    variables: Variables,
    signal: AbortSignal,
  ): AsyncGenerator<Data>;
}

/** The protocol adapters' documents: every `…Document` the codegen wrote (fragments are spread in them). */
const OPERATIONS: readonly DocumentNode[] = Object.entries(protocolDocuments).flatMap(([name, value]) =>
  name.endsWith('Document') ? [value as DocumentNode] : [],
);

/**
 * The runner of the adapters' documents, validated once, at start-up: a document that no longer
 * matches the schema stops the start rather than a caller's request. `adapter` names it in those
 * start-up errors.
 */
export function operationRunner(yoga: EnvelopedGraphQL, adapter: string): OperationRunner {
  const schema = yoga.getEnveloped({}).schema;
  const invalid = OPERATIONS.flatMap((document) => validate(schema, document, v1ValidationRules));
  if (invalid.length) throw new Error(`${adapter} operations do not validate: ${invalid.map((e) => e.message).join('; ')}`);
  // `restCredentials`: the context factory's entry for callers that execute documents in-process with
  // their own request's credentials (the REST shim, the protocol adapters).
  const enveloped = (credentials: RequestCredentials) => yoga.getEnveloped({ restCredentials: credentials });
  /** The pipeline and execution arguments of one operation, run with the caller's credentials. */
  const prepare = async (credentials: RequestCredentials, document: DocumentNode, variables: unknown) => {
    if (!OPERATIONS.includes(document)) throw new Error(`${adapter}: not a protocol operation`);
    const run = enveloped(credentials);
    const args: ExecutionArgs = {
      schema: run.schema,
      document,
      variableValues: variables as Record<string, unknown>,
      contextValue: await run.contextFactory(),
    };
    return { run, args };
  };

  return {
    async execute<Data, Variables>(credentials: RequestCredentials, document: TypedDocumentNode<Data, Variables>, variables: Variables) {
      const { run, args } = await prepare(credentials, document, variables);
      const result = (await run.execute(args)) as GraphQLResult<Data>;
      if (result.errors?.length) throw problemOf(result.errors[0]!);
      return result.data!;
    },
    async *subscribe<Data, Variables>(
      credentials: RequestCredentials,
      document: TypedDocumentNode<Data, Variables>,
      variables: Variables,
      signal: AbortSignal,
    ) {
      const { run, args } = await prepare(credentials, document, variables);
      const stream = (await run.subscribe(args)) as AsyncIterableIterator<GraphQLResult<Data>> | GraphQLResult<Data>;
      if (!(Symbol.asyncIterator in stream)) {
        if (stream.errors?.length) throw problemOf(stream.errors[0]!);
        return;
      }
      const aborted = new Promise<'aborted'>((resolve) => {
        if (signal.aborted) resolve('aborted');
        else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      try {
        for (;;) {
          const next = await Promise.race([stream.next(), aborted]);
          if (next === 'aborted' || next.done) return;
          if (next.value.errors?.length) throw problemOf(next.value.errors[0]!);
          yield next.value.data!;
        }
      } finally {
        void stream.return?.();
      }
    },
  };
}
