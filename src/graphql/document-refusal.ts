// A document scalar's refusal (src/graphql/document-scalars.ts). graphql-js runs a scalar's
// parseValue without saying which input field the value sits in, yet the services' checks name the
// member at fault from the field (`payload.content[0].text`, `extra_headers.X-Key`). So the scalar
// throws this, holding the check; the error masker, which reads the field from graphql-js's message,
// runs the check again with that field and answers the services' own error.
import { GraphQLError } from 'graphql';
import { isAppError, type AppError } from '../lib/errors.js';

export class DocumentRefusal extends Error {
  /** A brand instead of `instanceof`, which fails when a module is loaded twice (e.g. by test runners). */
  readonly isDocumentRefusal = true;

  constructor(
    /** The refusal with the scalar's own field name (for literals, whose errors name no path). */
    readonly refusal: AppError,
    private readonly check: (field: string) => unknown,
  ) {
    super(refusal.message);
    this.name = 'DocumentRefusal';
  }

  /** The refusal naming `field`, the snake_case name of the input field the value sat in. */
  at(field: string | undefined): AppError {
    if (field === undefined) return this.refusal;
    try {
      this.check(field);
    } catch (error) {
      if (isAppError(error)) return error;
      throw error;
    }
    return this.refusal;
  }
}

export function isDocumentRefusal(error: unknown): error is DocumentRefusal {
  return typeof error === 'object' && error !== null && (error as { isDocumentRefusal?: unknown }).isDocumentRefusal === true;
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The input field a refused variable value sat in, from graphql-js's message ("Variable \"$input\"
 * got invalid value … at \"input.extraHeaders\"; Expected type \"ExtraHeaders\". …"): the path's last
 * member, or the variable's name when the value is the variable itself, in snake_case
 * (`extra_headers`), as the services name fields; undefined for a literal's refusal.
 */
export function refusedField(message: string): string | undefined {
  const variable = /^Variable "\$([A-Za-z_][A-Za-z0-9_]*)" got invalid value /.exec(message);
  const end = message.lastIndexOf('; Expected type "');
  if (!variable || end < 0) return undefined;
  // The path graphql-js prints right before the scalar's message (list positions dropped).
  const at = / at "([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)"$/.exec(message.slice(0, end));
  const last = (at ? at[1]! : variable[1]!)
    .replace(/\[\d+\]/g, '')
    .split('.')
    .pop()!;
  return snakeCase(last);
}

/** The document refusal behind a GraphQL error (graphql-js wraps it once for the scalar, once for the variable). */
export function documentRefusalIn(error: unknown): DocumentRefusal | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 3 && cause instanceof GraphQLError; depth++) cause = cause.originalError;
  return isDocumentRefusal(cause) ? cause : undefined;
}
