// The built-in skills shipped in builtin-skills/: each loads (front matter, body, files) under the
// same rules as a workspace skill's content, and the catalogue the system prompt carries lists
// names and descriptions only.
import { describe, expect, it } from 'vitest';
import { builtinSkills, parseSkillFile } from '../../src/features/agents/builtin-skills.js';
import { skillCatalogue } from '../../src/engine/tools/skills.js';

describe('built-in skills', () => {
  it('ships the documented skills, each with a description and instructions', () => {
    const skills = builtinSkills();
    expect([...skills.keys()]).toEqual(['code-review', 'planning', 'research', 'skill-authoring', 'summarizing']);
    for (const [name, content] of skills) {
      expect(content.name).toBe(name);
      expect(content.description.length).toBeGreaterThan(40);
      expect(content.description.length).toBeLessThanOrEqual(1024);
      expect(content.instructions).toMatch(/^# /);
      expect(content.instructions).not.toContain('---\nname:');
    }
    expect(skills.get('planning')!.files.map((f) => f.path)).toEqual(['templates/plan.md']);
    expect(skills.get('code-review')!.files[0]).toMatchObject({ path: 'checklist.md', media_type: 'text/markdown' });
  });

  it("every file a skill's instructions name exists in the skill", () => {
    for (const content of builtinSkills().values()) {
      const named = [...content.instructions.matchAll(/`([\w./-]+\.md)`/g)].map((m) => m[1]).filter((path) => path !== 'SKILL.md');
      for (const path of named)
        expect(
          content.files.map((f) => f.path),
          `${content.name}: ${path}`,
        ).toContain(path);
    }
  });

  it('reads front matter strictly: name and description, nothing else', () => {
    expect(parseSkillFile('---\nname: a\ndescription: does a\n---\n\n# A\n', 'x')).toEqual({
      name: 'a',
      description: 'does a',
      body: '# A',
    });
    expect(() => parseSkillFile('# no front matter', 'x')).toThrow('front matter');
    expect(() => parseSkillFile('---\nname: a\n---\nbody', 'x')).toThrow('exactly name and description');
    expect(() => parseSkillFile('---\nname: a\ndescription: b\nlicense: c\n---\nbody', 'x')).toThrow('exactly name and description');
    expect(() => parseSkillFile('---\njust text\n---\nbody', 'x')).toThrow('key: value');
  });

  it('the catalogue lists names and descriptions, never instructions', () => {
    const skills = [...builtinSkills().values()].map((content) => ({ name: content.name, content }));
    const catalogue = skillCatalogue(skills);
    for (const { name, content } of skills) {
      expect(catalogue).toContain(`- ${name}: ${content.description}`);
      expect(catalogue).not.toContain(content.instructions.split('\n').slice(2).join('\n').slice(0, 80));
    }
    expect(catalogue).toContain('load_skill');
    expect(catalogue).toContain('read_skill_file');
  });
});
