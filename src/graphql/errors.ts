// Every GraphQL error leaves with an `extensions.code` from the one error table: the caller's own
// errors keep theirs, request/variable validation becomes invalid_argument naming the field, and
// a dependency that cannot be reached becomes `unavailable` (503, Retry-After), and anything
// unexpected becomes `internal` (logged, never shown).
import { conflictFromError } from '../lib/unique-conflict.js';
import { GraphQLError } from 'graphql';
import { isAppError, MAX_ECHO_CHARS, statusForCode } from '../lib/errors.js';
import { unavailableFromError } from '../lib/unavailable.js';
import type { Logger } from '../lib/logger.js';
import { closedSetValues } from './closed-sets.js';
import { documentRefusalIn, refusedField } from './document-refusal.js';

function fieldFromMessage(message: string): string | undefined {
  const at = /at "([^"]+)"/.exec(message);
  if (at) return at[1]!.split('.').slice(1).join('.') || at[1];
  const notDefined = /Field "([^"]+)" is not defined by type/.exec(message);
  if (notDefined) return notDefined[1];
  const required = /Field "([^"]+)" of required type/.exec(message);
  if (required) return required[1]!.split('.').pop();
  const variable = /Variable "\$([^"]+)"/.exec(message);
  return variable?.[1];
}

/**
 * A variable value outside its enum ("… at \"status[0]\"; Value \"x\" does not exist in \"RunStatus\"
 * enum."): the field without list positions and the message the services gave for such a value before
 * the arguments were enums ("status must be one of accepted, running, …"), so REST answers stay as
 * they were.
 */
function enumRefusal(message: string): { field: string; message: string } | undefined {
  if (!message.startsWith('Variable "$')) return undefined;
  // Searched from the end with a plain pattern: the message quotes the caller's value, of any size.
  const enumName = / does not exist in "([A-Za-z0-9_]+)" enum\./.exec(message.slice(message.lastIndexOf('; Value ')))?.[1];
  const values = enumName ? closedSetValues(enumName) : undefined;
  const field = fieldFromMessage(message)?.replace(/\[\d+\]/g, '');
  if (!values || !field) return undefined;
  return { field, message: values.length === 1 ? `${field} must be ${values[0]}` : `${field} must be one of ${values.join(', ')}` };
}

/**
 * graphql-js quotes a refused variable value whole in its message ("got invalid value …"); keep at
 * most MAX_ECHO_CHARS characters of each quoted string, and the message itself under 1,000.
 */
function boundEcho(message: string): string {
  const bounded = message.replace(/"((?:[^"\\]|\\.)*)"/g, (quoted: string, inner: string) =>
    inner.length > MAX_ECHO_CHARS ? `"${inner.slice(0, MAX_ECHO_CHARS).replace(/\\$/, '')}…"` : quoted,
  );
  return bounded.length > 1000 ? `${bounded.slice(0, 1000)}…` : bounded;
}

export function createErrorMasker(logger: Logger) {
  return (error: unknown): Error => {
    const graphQLError = error instanceof GraphQLError ? error : null;
    let original = graphQLError?.originalError ?? error;
    // A document scalar's refusal (graphql-js wraps it once for the scalar, once for the variable):
    // the services' error, naming the input field the value sat in.
    const refusal = documentRefusalIn(graphQLError);
    if (graphQLError && refusal) original = refusal.at(refusedField(graphQLError.message));
    if (!isAppError(original)) original = unavailableFromError(original) ?? conflictFromError(original) ?? original;
    if (isAppError(original)) {
      if (graphQLError && graphQLError !== original) {
        return new GraphQLError(original.message, {
          nodes: graphQLError.nodes,
          path: graphQLError.path,
          positions: graphQLError.positions,
          source: graphQLError.source,
          extensions: original.extensions,
        });
      }
      return original;
    }
    if (graphQLError && (!graphQLError.originalError || graphQLError.originalError instanceof GraphQLError)) {
      const code = (graphQLError.extensions?.code as string | undefined) ?? '';
      if (
        code &&
        code !== 'GRAPHQL_VALIDATION_FAILED' &&
        code !== 'BAD_USER_INPUT' &&
        code !== 'GRAPHQL_PARSE_FAILED' &&
        statusForCode(code) !== 500
      ) {
        return graphQLError;
      }
      // Parse and validation errors, and variables that do not fit their types.
      const refusal = enumRefusal(graphQLError.message);
      const field = refusal?.field ?? fieldFromMessage(graphQLError.message);
      return new GraphQLError(refusal?.message ?? boundEcho(graphQLError.message), {
        nodes: graphQLError.nodes,
        path: graphQLError.path,
        positions: graphQLError.positions,
        source: graphQLError.source,
        extensions: { code: 'invalid_argument', ...(field ? { details: { field } } : {}), http: { status: 400 } },
      });
    }
    logger.error({ err: original }, 'unexpected error');
    return new GraphQLError('internal error', {
      nodes: graphQLError?.nodes,
      path: graphQLError?.path,
      extensions: { code: 'internal', http: { status: 500 } },
    });
  };
}
