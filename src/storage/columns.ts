// Column lists for raw statements that must return rows shaped exactly like Prisma's models
// (camelCase fields, parsed JSON, Dates), so hot paths written as one SQL statement hand the same
// objects to GraphQL as the Prisma client would.
import { Prisma } from '../generated/prisma/client.js';

/** The column of a Prisma field: `agentRevisionId` → `agent_revision_id` (the schema maps every field so). */
export const columnName = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `"alias"."snake_case" AS "camelCase", …` for every scalar field of a model. */
export function returningColumns(fields: Record<string, string>, alias?: string): Prisma.Sql {
  const prefix = alias ? `"${alias}".` : '';
  return Prisma.raw(
    Object.keys(fields)
      .map((field) => `${prefix}"${columnName(field)}" AS "${field}"`)
      .join(', '),
  );
}

export const RUN_COLUMNS = returningColumns(Prisma.RunScalarFieldEnum);

/** `"alias"."snake_case" AS "prefix.camelCase", …`: several models in one row, split by `takePrefixed`. */
export function prefixedColumns(fields: Record<string, string>, alias: string, prefix: string): Prisma.Sql {
  return Prisma.raw(
    Object.keys(fields)
      .map((field) => `"${alias}"."${columnName(field)}" AS "${prefix}.${field}"`)
      .join(', '),
  );
}

export function takePrefixed<T>(row: Record<string, unknown>, prefix: string): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] = value;
  return out as T;
}
