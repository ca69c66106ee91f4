// Skills: revisioned heads whose revisions hold a skill's content. Everything is the shared
// revisioned surface (revisioned.ts); skills add nothing of their own.
import { revisionedSurface } from './revisioned.js';
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
} from '../../services/skills.js';

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
  descriptions: { document: '{name, description, instructions, files: [{path, content, media_type}]}' },
});
