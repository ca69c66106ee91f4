// Reading a document stored in a JSON column (an agent revision's configuration, a run's options) as
// the type its schema gives it. What is stored was validated against that schema when it was
// written, so in production the value is only cast — here, in one place, instead of a cast at every
// read. In development and tests the value is checked first, so a write that skipped validation, or
// a schema changed without a migration of the stored documents, fails loudly where it is read.
import type { Static, TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';

const checked = process.env.NODE_ENV === 'development' || process.env.NODE_ENV === 'test';
/** Compiled checkers by schema: the schemas are the service's own, a handful, kept for the process. */
const validators = new WeakMap<TSchema, Validator>();

export function readStored<T extends TSchema>(schema: T, value: unknown): Static<T> {
  if (checked) {
    let validator = validators.get(schema);
    if (!validator) {
      validator = Compile(schema);
      validators.set(schema, validator);
    }
    if (!validator.Check(value)) {
      const [first] = validator.Errors(value);
      const name = (schema as { title?: string }).title ?? 'a stored document';
      throw new Error(`${name} does not match its schema: ${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'}`);
    }
  }
  return value as Static<T>;
}
