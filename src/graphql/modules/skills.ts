import { builder } from '../builder.js';
import { pageOf, VersionedRef } from './common.js';
import { formatEtag } from '../../lib/etag.js';
import {
  archiveSkill, createSkill, getSkill, getSkillRevision, listSkillRevisions, listSkills, publishSkillRevision, setDefaultSkillRevision,
  unarchiveSkill, updateSkill,
} from '../../services/skills.js';

export const SkillRef = builder.prismaObject('Skill', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    labels: t.expose('labels', { type: 'JSON' }),
    defaultRevisionId: t.exposeString('defaultRevisionId', { nullable: true }),
    source: t.exposeString('source'),
    archivedAt: t.expose('archivedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const SkillRevisionRef = builder.prismaObject('SkillRevision', {
  fields: (t) => ({
    id: t.exposeID('id'),
    skillId: t.exposeString('skillId'),
    number: t.exposeInt('number'),
    digest: t.exposeString('digest'),
    note: t.exposeString('note'),
    content: t.expose('content', { type: 'JSON', description: '{name, description, instructions, files: [{path, content, media_type}]}' }),
    etag: t.string({ resolve: (revision) => formatEtag(revision.id, 1) }),
    createdById: t.exposeString('createdById'),
    updatedById: t.exposeString('createdById'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const SkillPage = pageOf('SkillPage', SkillRef);
const SkillRevisionPage = pageOf('SkillRevisionPage', SkillRevisionRef);

const SkillRevisionPublication = builder.objectRef<{ head: any; revision: any; created: boolean }>('SkillRevisionPublication').implement({
  fields: (t) => ({
    revision: t.field({ type: SkillRevisionRef, resolve: (r) => r.revision }),
    skill: t.field({ type: SkillRef, resolve: (r) => r.head }),
    created: t.boolean({ resolve: (r) => r.created }),
  }),
});

const CreateSkillInput = builder.inputType('CreateSkillInput', {
  fields: (t) => ({
    name: t.string({ required: true }), description: t.string(), labels: t.field({ type: 'JSON' }),
    content: t.field({ type: 'JSON', required: true }), note: t.string(),
  }),
});
const UpdateSkillInput = builder.inputType('UpdateSkillInput', {
  fields: (t) => ({ name: t.string(), description: t.string(), labels: t.field({ type: 'JSON' }) }),
});
const PublishSkillRevisionInput = builder.inputType('PublishSkillRevisionInput', {
  fields: (t) => ({ content: t.field({ type: 'JSON', required: true }), note: t.string(), makeDefault: t.boolean() }),
});

builder.queryFields((t) => ({
  skill: t.field({ type: SkillRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, args, ctx) => getSkill(ctx.deps, await ctx.actor(), String(args.id)) }),
  skills: t.field({
    type: SkillPage,
    args: { label: t.arg.stringList(), q: t.arg.string(), archived: t.arg.boolean(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, ctx) => listSkills(ctx.deps, await ctx.actor(), args),
  }),
  skillRevision: t.field({
    type: SkillRevisionRef,
    args: { skillId: t.arg.id({ required: true }), revisionId: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) => getSkillRevision(ctx.deps, await ctx.actor(), String(args.skillId), String(args.revisionId)),
  }),
  skillRevisions: t.field({
    type: SkillRevisionPage,
    args: { skillId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, ctx) => listSkillRevisions(ctx.deps, await ctx.actor(), String(args.skillId), args),
  }),
}));

builder.mutationFields((t) => ({
  createSkill: t.field({
    type: SkillRef,
    args: { input: t.arg({ type: CreateSkillInput, required: true }) },
    resolve: async (_r, args, ctx) => createSkill(ctx.deps, await ctx.actor(), args.input, ctx.requestId),
  }),
  updateSkill: t.field({
    type: SkillRef,
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateSkillInput, required: true }) },
    resolve: async (_r, args, ctx) => updateSkill(ctx.deps, await ctx.actor(), String(args.id), args.ifMatch, args.input, ctx.requestId),
  }),
  archiveSkill: t.field({
    type: SkillRef,
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => archiveSkill(ctx.deps, await ctx.actor(), String(args.id), args.ifMatch),
  }),
  unarchiveSkill: t.field({
    type: SkillRef,
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => unarchiveSkill(ctx.deps, await ctx.actor(), String(args.id), args.ifMatch),
  }),
  publishSkillRevision: t.field({
    type: SkillRevisionPublication,
    args: { skillId: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: PublishSkillRevisionInput, required: true }) },
    resolve: async (_r, args, ctx) => publishSkillRevision(ctx.deps, await ctx.actor(), String(args.skillId), args.ifMatch, args.input, ctx.requestId),
  }),
  setDefaultSkillRevision: t.field({
    type: SkillRef,
    args: { skillId: t.arg.id({ required: true }), revisionId: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, args, ctx) => setDefaultSkillRevision(ctx.deps, await ctx.actor(), String(args.skillId), String(args.revisionId), args.ifMatch),
  }),
}));
