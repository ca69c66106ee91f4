// The stored rows services hand out, by type: Prisma's generated model types, named here for the
// engine, which may not import the Prisma client (its rows come from services, never from a query
// of its own). Types only: nothing here reads or writes.
export type { Agent, Connection, EnvironmentTemplate, Memory, Model, Run, Skill } from '../generated/prisma/client.js';
