// The GraphQL surface every revisioned kind shares (agents and skills: a head plus immutable numbered
// revisions, whose rules live once in src/services/revisioned.ts). One call registers the head and
// revision types, their pages, the publication result, the create/update/publish inputs, four queries
// (`agent`, `agents`, `agentRevision`, `agentRevisions`) and six mutations (create, update, archive,
// unarchive, publish a revision, set the default revision), all named after the kind. A kind module
// adds only what is its own: extra head fields and list filters, extra input fields, extra operations.
// The kinds describe different fields (agents more than skills), so descriptions are parameters.
import type { ArgBuilder, FieldMap, InputFieldBuilder, InputFieldMap, ObjectFieldBuilder, ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import { asNode } from './node.js';
import { revisionedLoaders } from '../../services/nodes.js';
import { connectionArgs, connectionFrom, connectionOf, VersionedRef, type Types } from './common.js';
import { nameAndLabelInputs, withNamedResourceFields } from './named-fields.js';
import { DOCUMENT_DESCRIPTION } from '../../features/agents/graphql/agent-config.js';
import { capitalize, payloadOf } from './payloads.js';
import { formatEtag } from '../../lib/etag.js';
import type { Page } from '../../lib/cursor.js';
import type { CallContext } from '../../services/call-context.js';
import type { HeadListArgs, HeadRow, PublishResult, RevisionedKind, RevisionRow } from '../../services/revisioned.js';

type IfMatch = string | null | undefined;

/** The service functions of one kind (src/features/agents/agents.ts, skills.ts). */
export interface RevisionedService<H, R> {
  get(call: CallContext, id: string): Promise<H>;
  list(call: CallContext, args: HeadListArgs): Promise<Page<H>>;
  getRevision(call: CallContext, headId: string, revisionId: string): Promise<R>;
  listRevisions(call: CallContext, headId: string, args: { limit?: number | null; cursor?: string | null }): Promise<Page<R>>;
  create(call: CallContext, input: { name: unknown; [field: string]: unknown }): Promise<H>;
  update(call: CallContext, id: string, ifMatch: IfMatch, patch: { [field: string]: unknown }): Promise<H>;
  archive(call: CallContext, id: string, ifMatch: IfMatch): Promise<H>;
  unarchive(call: CallContext, id: string, ifMatch: IfMatch): Promise<H>;
  publish(
    call: CallContext,
    headId: string,
    ifMatch: IfMatch,
    input: { makeDefault?: boolean | null; [field: string]: unknown },
  ): Promise<PublishResult<H, R>>;
  setDefault(call: CallContext, headId: string, revisionId: string, ifMatch: IfMatch): Promise<H>;
}

export interface RevisionedSurface<H extends HeadRow, R extends RevisionRow> {
  /** The service-side description of the kind: its name (`agent` → types `Agent`, `AgentRevision`, …), head key and document field. */
  kind: RevisionedKind<H, R>;
  service: RevisionedService<H, R>;
  /**
   * The typed object of a revision's document (agents: `AgentConfiguration`; skills: `SkillContent`).
   * The document field (`config`, `content`) answers it; `<field>Document` answers the document as
   * stored, as JSON (what the REST views select: a typed selection would add null members and
   * reorder them).
   */
  documentType: ObjectRef<Types, object>;
  /**
   * The document scalar the create and publish inputs take the document as (snake_case members, as
   * REST takes it, checked as a whole by the kind's own check, which names the member at fault).
   */
  documentScalar: 'AgentConfigurationDocument' | 'SkillContentDocument';
  /** Head fields beyond the shared ones. */
  headFields?: (t: ObjectFieldBuilder<Types, H>) => FieldMap;
  /** Arguments of the list query beyond label, q, archived, limit and cursor (passed to `service.list`). */
  listArgs?: (t: ArgBuilder<Types>) => InputFieldMap;
  /** Fields of the create and update inputs beyond name, description and labels. */
  createFields?: (t: InputFieldBuilder<Types, 'InputObject'>) => InputFieldMap;
  updateFields?: (t: InputFieldBuilder<Types, 'InputObject'>) => InputFieldMap;
  descriptions?: {
    /** the revision's document field */
    document?: string;
    /** the document field of the create and publish inputs */
    createDocument?: string;
    /** the note of the create input */
    createNote?: string;
    /** makeDefault of the publish input */
    makeDefault?: string;
    /** `created` of the publication result */
    created?: string;
    /** the update mutation */
    update?: string;
    /** the revisions query */
    revisions?: string;
  };
}

/** A field of a row named at run time (the kind's head key or document field). */
const fieldOf = (row: object, key: string): unknown => Reflect.get(row, key);

/** What every head and revision row has; the refs are built on these and returned typed as the kind's rows. */
type Head = HeadRow & { source: string };
type Revision = RevisionRow;

export function revisionedSurface<H extends Head, R extends Revision>(
  surface: RevisionedSurface<H, R>,
): {
  HeadRef: ObjectRef<Types, H>;
  RevisionRef: ObjectRef<Types, R>;
  /** The revisions' connection type, for the head's `revisions` relation (connections.ts). */
  RevisionConnection: ReturnType<typeof connectionOf<R>>;
} {
  const { kind, service, descriptions: describe = {} } = surface;
  const single = kind.kind; // agent
  const Name = capitalize(single); // Agent
  const headKey = kind.headKey; // agentId: the revision's link to its head, and the argument naming the head
  const document = kind.contentField; // config

  // The names of the head-id argument and of the document fields depend on the kind, so TypeScript
  // cannot know them: these two helpers add them at run time while the static types leave them out
  // (typed, they would widen every argument to an index signature), and `headIdOf` reads the argument.
  const headIdArg = (arg: ArgBuilder<Types>) => ({ [headKey]: arg.id({ required: true }) }) as object;
  const headIdOf = (args: object) => String((args as Record<string, unknown>)[headKey]);
  const documentField = (t: InputFieldBuilder<Types, 'InputObject'>, description?: string) =>
    ({ [document]: t.field({ type: surface.documentScalar, required: true, description }) }) as object;

  const HeadRef = builder.objectRef<Head>(Name).implement({
    interfaces: [VersionedRef],
    fields: (t) => ({
      defaultRevisionId: t.exposeString('defaultRevisionId', { nullable: true }),
      source: t.exposeString('source'),
      archivedAt: t.expose('archivedAt', { type: 'DateTime', nullable: true }),
      // The kind's own fields see the kind's rows, which is what the kind's services return. (Pothos
      // field builders are invariant in their row type, so a builder of the shared row cannot be
      // passed as one of the kind's row without going through unknown.)
      ...surface.headFields?.(t as unknown as ObjectFieldBuilder<Types, H>),
    }),
  });

  const RevisionRef = builder.objectRef<Revision>(`${Name}Revision`).implement({
    fields: (t) => ({
      [headKey]: t.string({ resolve: (revision) => String(fieldOf(revision, headKey)) }),
      number: t.exposeInt('number'),
      digest: t.exposeString('digest'),
      note: t.exposeString('note'),
      [document]: t.field({
        type: surface.documentType,
        description: describe.document,
        resolve: (revision) => fieldOf(revision, document) as object,
      }),
      [`${document}Document`]: t.field({
        type: 'JSON',
        description: `the ${document}: ${DOCUMENT_DESCRIPTION}`,
        resolve: (revision) => fieldOf(revision, document),
      }),
      // Revisions are immutable: their ETag never changes, and updated_* equal created_*.
      etag: t.string({ resolve: (revision) => formatEtag(revision.id, 1) }),
      createdById: t.exposeString('createdById'),
      updatedById: t.exposeString('createdById'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

  const loaders = revisionedLoaders(kind);
  asNode(HeadRef, { kind: kind.kind, load: loaders.heads });
  withNamedResourceFields(HeadRef);
  asNode(RevisionRef, { kind: kind.revisionIdKind, load: loaders.revisions });

  const HeadConnection = connectionOf(Name, HeadRef);
  const RevisionConnection = connectionOf(`${Name}Revision`, RevisionRef as unknown as ObjectRef<Types, R>);

  const Publication = builder.objectRef<PublishResult<Head, Revision>>(`Publish${Name}RevisionPayload`).implement({
    fields: (t) => ({
      revision: t.field({ type: RevisionRef, resolve: (result) => result.revision }),
      [single]: t.field({ type: HeadRef, resolve: (result) => result.head }),
      created: t.boolean({ description: describe.created, resolve: (result) => result.created }),
    }),
  });

  const CreateInput = builder.inputType(`Create${Name}Input`, {
    fields: (t) => ({
      ...nameAndLabelInputs(t),
      name: t.string({ required: true }),
      ...documentField(t, describe.createDocument),
      note: t.string({ description: describe.createNote }),
      ...surface.createFields?.(t),
    }),
  });
  const UpdateInput = builder.inputType(`Update${Name}Input`, {
    fields: (t) => ({ ...nameAndLabelInputs(t), ...surface.updateFields?.(t) }),
  });
  const PublishInput = builder.inputType(`Publish${Name}RevisionInput`, {
    fields: (t) => ({
      ...documentField(t, describe.createDocument),
      note: t.string(),
      makeDefault: t.boolean({ description: describe.makeDefault }),
    }),
  });

  builder.queryFields((t) => ({
    [single]: t.field({
      type: HeadRef,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (_r, args, ctx) => service.get(await ctx.call(), String(args.id)),
    }),
    [`${single}s`]: t.field({
      type: HeadConnection,
      description: 'At most 100 a page (default 50).',
      args: {
        label: t.arg.stringList(),
        q: t.arg.string(),
        archived: t.arg.boolean(),
        ...connectionArgs(t.arg),
        ...surface.listArgs?.(t.arg),
      },
      resolve: async (_r, args, ctx) => connectionFrom(args, async (page) => service.list(await ctx.call(), { ...args, ...page })),
    }),
    [`${single}Revision`]: t.field({
      type: RevisionRef,
      args: { ...headIdArg(t.arg), revisionId: t.arg.id({ required: true }) },
      resolve: async (_r, args, ctx) => service.getRevision(await ctx.call(), headIdOf(args), String(args.revisionId)),
    }),
    [`${single}Revisions`]: t.field({
      type: RevisionConnection,
      description: `${describe.revisions} At most 100 a page (default 50).`,
      args: { ...headIdArg(t.arg), ...connectionArgs(t.arg) },
      resolve: async (_r, args, ctx) => connectionFrom(args, async (page) => service.listRevisions(await ctx.call(), headIdOf(args), page)),
    }),
  }));

  /** A payload carrying the head under the kind's name (`CreateAgentPayload.agent`). */
  const headPayload = (mutation: string) => payloadOf(mutation, single, HeadRef);

  builder.mutationFields((t) => ({
    [`create${Name}`]: t.field({
      type: headPayload(`create${Name}`),
      args: { input: t.arg({ type: CreateInput, required: true }) },
      resolve: async (_r, args, ctx) => service.create(await ctx.call(), args.input),
    }),
    [`update${Name}`]: t.field({
      type: headPayload(`update${Name}`),
      description: describe.update,
      args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateInput, required: true }) },
      resolve: async (_r, args, ctx) => service.update(await ctx.call(), String(args.id), args.ifMatch, args.input),
    }),
    [`archive${Name}`]: t.field({
      type: headPayload(`archive${Name}`),
      args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
      resolve: async (_r, args, ctx) => service.archive(await ctx.call(), String(args.id), args.ifMatch),
    }),
    [`unarchive${Name}`]: t.field({
      type: headPayload(`unarchive${Name}`),
      args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
      resolve: async (_r, args, ctx) => service.unarchive(await ctx.call(), String(args.id), args.ifMatch),
    }),
    [`publish${Name}Revision`]: t.field({
      type: Publication,
      args: { ...headIdArg(t.arg), ifMatch: t.arg.string(), input: t.arg({ type: PublishInput, required: true }) },
      resolve: async (_r, args, ctx) => service.publish(await ctx.call(), headIdOf(args), args.ifMatch, args.input),
    }),
    [`setDefault${Name}Revision`]: t.field({
      type: headPayload(`setDefault${Name}Revision`),
      args: { ...headIdArg(t.arg), revisionId: t.arg.id({ required: true }), ifMatch: t.arg.string() },
      resolve: async (_r, args, ctx) => service.setDefault(await ctx.call(), headIdOf(args), String(args.revisionId), args.ifMatch),
    }),
  }));

  // The refs were built on the shared row shapes; every value they see comes from the kind's services.
  // (Refs are invariant in their row type too: hence unknown.)
  return {
    HeadRef: HeadRef as unknown as ObjectRef<Types, H>,
    RevisionRef: RevisionRef as unknown as ObjectRef<Types, R>,
    RevisionConnection,
  };
}
