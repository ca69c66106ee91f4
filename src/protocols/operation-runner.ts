// Executes a protocol adapter's GraphQL documents (its operations.graphql) through Yoga's enveloped
// pipeline with the caller's own credentials, as the REST shim does: MCP, AG-UI and OpenAI-compatible
// callers get the same auth, permissions, tenancy, audit and error codes as every other surface, and no
// adapter reaches a service or the database itself. One runner for the three, so they cannot drift.
import { readFileSync } from 'node:fs';
import { Kind, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { RequestCredentials } from '../graphql/context.js';

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
  operationName?: string;
  variableValues?: Record<string, unknown>;
  contextValue: unknown;
}

interface GraphQLResult {
  data?: Record<string, any> | null;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
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
  execute(credentials: RequestCredentials, operationName: string, variables?: Record<string, unknown>): Promise<Record<string, any>>;
  /** A subscription's events (data of each), ended by `signal`; a refused subscription throws. */
  subscribe(
    credentials: RequestCredentials,
    operationName: string,
    variables: Record<string, unknown>,
    signal: AbortSignal,
  ): AsyncGenerator<Record<string, any>>;
}

/**
 * The runner of one adapter's documents (`documentUrl`, read and validated once, at start-up: a
 * document that no longer matches the schema stops the start rather than a caller's request).
 * `adapter` names it in those start-up errors.
 */
export function operationRunner(yoga: EnvelopedGraphQL, documentUrl: URL, adapter: string): OperationRunner {
  const document = parse(readFileSync(documentUrl, 'utf8'));
  const invalid = validate(yoga.getEnveloped({}).schema, document);
  if (invalid.length) throw new Error(`${adapter} operations do not validate: ${invalid.map((e) => e.message).join('; ')}`);
  const names = new Set(document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : [])));
  // `restCredentials`: the context factory's entry for callers that execute documents in-process with
  // their own request's credentials (the REST shim, the protocol adapters).
  const enveloped = (credentials: RequestCredentials) => yoga.getEnveloped({ restCredentials: credentials });
  const check = (name: string) => {
    if (!names.has(name)) throw new Error(`no ${adapter} operation ${name}`);
  };

  return {
    async execute(credentials, operationName, variables = {}) {
      check(operationName);
      const run = enveloped(credentials);
      const result = (await run.execute({
        schema: run.schema,
        document,
        operationName,
        variableValues: variables,
        contextValue: await run.contextFactory(),
      })) as GraphQLResult;
      if (result.errors?.length) throw problemOf(result.errors[0]!);
      return result.data!;
    },
    async *subscribe(credentials, operationName, variables, signal) {
      check(operationName);
      const run = enveloped(credentials);
      const stream = (await run.subscribe({
        schema: run.schema,
        document,
        operationName,
        variableValues: variables,
        contextValue: await run.contextFactory(),
      })) as AsyncIterableIterator<GraphQLResult> | GraphQLResult;
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
