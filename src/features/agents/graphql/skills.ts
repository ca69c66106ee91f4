// Skills: revisioned heads whose revisions hold a skill's content. Everything is the shared
// revisioned surface (revisioned.ts) plus the typed content.
import { builder } from '../../../graphql/builder.js';
import { revisionedSurface } from '../../../graphql/modules/revisioned.js';
import {
  archiveSkill,
  createSkill,
  getSkill,
  getSkillRevision,
  listSkillRevisions,
  listSkills,
  publishSkillRevision,
  setDefaultSkillRevision,
  SKILLS,
  unarchiveSkill,
  updateSkill,
  type SkillContent,
} from '../skills.js';
import { relation } from '../../../graphql/modules/relations.js';
import { childConnection } from '../../../graphql/modules/list-relations.js';
import { skillRevisionPages } from '../../../services/relation-pages.js';
import { documentScalar } from '../../../graphql/document-scalars.js';
import { normalizeSkillContent } from '../skills.js';

// A skill's content as callers write it, checked as the service checks it (naming the member at
// fault: `content.files[0].path`); the typed view of a published one is `SkillContent`.
documentScalar('SkillContentDocument', {
  description:
    "A skill's content as one JSON document (snake_case members, as REST takes it): {name, description, instructions, files: [{path, content, media_type}]}.",
  check: normalizeSkillContent,
  field: 'content',
});

const SkillFileRef = builder.objectRef<SkillContent['files'][number]>('SkillFile').implement({
  description: 'A file that comes with a skill.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'relative path, without . or .. segments' }),
    content: t.exposeString('content'),
    mediaType: t.string({ description: 'text/plain unless given', resolve: (file) => file.media_type }),
  }),
});

const SkillContentRef = builder.objectRef<SkillContent>('SkillContent').implement({
  description: "A skill revision's content.",
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description', { description: '"" when unset' }),
    instructions: t.exposeString('instructions', { description: 'markdown' }),
    files: t.field({ type: [SkillFileRef], description: 'ordered by path', resolve: (content) => content.files }),
  }),
});

export const {
  HeadRef: SkillRef,
  RevisionRef: SkillRevisionRef,
  RevisionConnection: SkillRevisionConnection,
} = revisionedSurface({
  kind: SKILLS,
  service: {
    get: getSkill,
    list: listSkills,
    getRevision: getSkillRevision,
    listRevisions: listSkillRevisions,
    create: createSkill,
    update: updateSkill,
    archive: archiveSkill,
    unarchive: unarchiveSkill,
    publish: publishSkillRevision,
    setDefault: setDefaultSkillRevision,
  },
  documentType: SkillContentRef,
  documentScalar: 'SkillContentDocument',
  descriptions: {
    document: 'the content, typed',
    createDocument: '{name, description, instructions, files: [{path, content, media_type}]}',
  },
});

relation(SkillRef, 'defaultRevision', {
  type: SkillRevisionRef,
  nullable: true,
  id: (skill) => skill.defaultRevisionId,
  description: 'the revision agents use unless they pin one (defaultRevisionId)',
});

childConnection(SkillRef, 'revisions', {
  type: SkillRevisionConnection,
  pages: skillRevisionPages,
  description: "The skill's revisions, newest first: `skillRevisions(skillId:)` (its cursors too).",
});
