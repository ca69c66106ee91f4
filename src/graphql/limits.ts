// Limits on what one GraphQL document may ask for, so that no single request can occupy the
// process (docs/api/README.md, "GraphQL limits"). GraphQL Armor's rules bound tokens (while
// parsing), aliases, depth, cost and directives; our own rule bounds the root fields a query or a
// mutation runs and allows one `__schema` per operation; graphql-js itself bounds introspection
// nesting (MaxIntrospectionDepthRule, among its specified rules) and allows one root field per
// subscription. A refused document answers 400 `invalid_argument` before anything executes.
//
// The REST shim's documents are trusted: they are validated once at start-up without these rules
// and executed directly, so the limits apply to what callers send on /graphql (HTTP, SSE and
// graphql-ws). A test checks that every shim document fits the default limits anyway, so a client
// may send the same documents over GraphQL.
import {
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  getOperationAST,
  type OperationDefinitionNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { Config, GraphQLLimits } from '../config.js';
import { AppError } from '../lib/errors.js';
import { MAX_WAIT_SECONDS } from '../features/runs/run-watch.js';
import { rootResponseKeys } from './access.js';

/** Root fields per query and per mutation, and at most one `__schema` per operation. */
export function maxRootFieldsRule(limits: Pick<GraphQLLimits, 'maxRootFields' | 'maxMutationFields'>): ValidationRule {
  return (context) => ({
    Document(document) {
      for (const { operation, keys } of rootResponseKeys(document)) {
        const limit = operation === 'mutation' ? limits.maxMutationFields : operation === 'query' ? limits.maxRootFields : Infinity;
        if (keys.size > limit) {
          context.reportError(new GraphQLError(`Root field limit of ${limit} per ${operation} exceeded, found ${keys.size}.`));
        }
        const schemas = [...keys.values()].filter((name) => name === '__schema').length;
        if (schemas > 1) context.reportError(new GraphQLError(`__schema may be selected once per operation, found ${schemas}.`));
      }
    },
  });
}

/** The validation rules every document sent by a caller must pass (besides graphql-js's own). */
export function documentLimitRules(config: Pick<Config, 'graphqlLimits' | 'graphqlIntrospection'>): ValidationRule[] {
  const limits = config.graphqlLimits;
  // Armor's rules would throw their error out of validate() (graphql-ws then closes the socket with
  // 4500); reported instead, it joins the other validation errors. Its message names the limit.
  const report = {
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
  };
  const rules: ValidationRule[] = [
    maxAliasesRule({ n: limits.maxAliases, ...report }),
    maxDepthRule({ n: limits.maxDepth, ...report }),
    costLimitRule({ maxCost: limits.maxCost, ...report }),
    maxDirectivesRule({ n: limits.maxDirectives, ...report }),
    maxRootFieldsRule(limits),
  ];
  if (config.graphqlIntrospection === 'off') rules.push(NoSchemaIntrospectionCustomRule);
  return rules;
}

export function useDocumentLimits(config: Pick<Config, 'graphqlLimits' | 'graphqlIntrospection'>): Plugin[] {
  const rules = documentLimitRules(config);
  return [
    // Counted while parsing: a document over the limit stops being read at its first extra token.
    maxTokensPlugin({ n: config.graphqlLimits.maxTokens }),
    { onValidate: ({ addValidationRule }) => rules.forEach((rule) => addValidationRule(rule)) },
  ];
}

/**
 * A deadline for each query and mutation: after `timeoutMs` execution is aborted (no further
 * resolver starts) and the caller gets 504 `deadline_exceeded`. Work already handed to a service
 * finishes on its own (a mutation's transaction may still commit), so a caller that hit the
 * deadline reads the state back. Subscriptions are long-lived and not bounded. A root field's
 * `wait` argument (seconds, see src/features/runs/run-watch.ts) extends the deadline by that wait.
 */
export function useExecutionDeadline(timeoutMs: number): Plugin {
  return {
    onExecute({ args }) {
      if (timeoutMs <= 0) return undefined;
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation === 'subscription') return undefined;
      const limitMs = timeoutMs + requestedWaitSeconds(operation, args.variableValues) * 1000;
      const controller = new AbortController();
      const timer = setTimeout(() => {
        controller.abort(
          new AppError('deadline_exceeded', `the operation did not finish within ${limitMs} ms (GRAPHQL_TIMEOUT_MS) and was stopped`, {
            limit_ms: limitMs,
          }),
        );
      }, limitMs);
      const withSignal = args as { signal?: AbortSignal };
      withSignal.signal = withSignal.signal ? AbortSignal.any([withSignal.signal, controller.signal]) : controller.signal;
      return { onExecuteDone: () => clearTimeout(timer) };
    },
  };
}

/** The longest `wait` argument (seconds) among the operation's root fields, at most MAX_WAIT_SECONDS. */
function requestedWaitSeconds(operation: OperationDefinitionNode | null | undefined, variables: unknown): number {
  let longest = 0;
  for (const selection of operation?.selectionSet.selections ?? []) {
    if (selection.kind !== Kind.FIELD) continue;
    const value = selection.arguments?.find((argument) => argument.name.value === 'wait')?.value;
    const seconds =
      value?.kind === Kind.INT
        ? Number(value.value)
        : value?.kind === Kind.VARIABLE
          ? (variables as Record<string, unknown> | null | undefined)?.[value.name.value]
          : 0;
    if (typeof seconds === 'number' && Number.isFinite(seconds)) longest = Math.max(longest, seconds);
  }
  return Math.min(longest, MAX_WAIT_SECONDS);
}
