// Built-in skills: skills that ship with the service, for any agent to list in `builtin_skills`.
// They are data in the repository (builtin-skills/<name>/): a SKILL.md whose front matter names and
// describes the skill and whose body is its instructions, and any other files beside it — the layout
// agent-skill systems use, so a skill can move between them unchanged. They are read once per
// process, checked by the same rules as a workspace skill's content, and never change while it runs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fromRepositoryRoot } from '../../lib/repository-root.js';
import { normalizeSkillContent, type SkillContent } from './skills.js';

const BUILTIN_DIR = fromRepositoryRoot('builtin-skills');
const ENTRY_FILE = 'SKILL.md';

/** Media types by file extension (anything else is text/plain). */
const MEDIA_TYPES: Record<string, string> = {
  md: 'text/markdown',
  json: 'application/json',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  csv: 'text/csv',
};

/**
 * SKILL.md: front matter between `---` lines holding exactly `name:` and `description:` (one line
 * each), then the markdown body. Our own files only, so the format is this strict subset of YAML
 * rather than a YAML parser.
 */
export function parseSkillFile(text: string, where: string): { name: string; description: string; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(text.replace(/\r\n/g, '\n'));
  if (!match) throw new Error(`${where}: SKILL.md must start with front matter between --- lines`);
  const fields = new Map<string, string>();
  for (const line of match[1]!.split('\n')) {
    const field = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (!field) throw new Error(`${where}: front matter line ${JSON.stringify(line)} is not "key: value"`);
    fields.set(field[1]!, field[2]!.trim());
  }
  const name = fields.get('name');
  const description = fields.get('description');
  if (!name || !description || fields.size !== 2) throw new Error(`${where}: front matter must hold exactly name and description`);
  return { name, description, body: match[2]!.trim() };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function loadSkill(dir: string): SkillContent {
  const parsed = parseSkillFile(readFileSync(join(dir, ENTRY_FILE), 'utf8'), dir);
  const files = filesUnder(dir)
    .map((path) => relative(dir, path).split(sep).join('/'))
    .filter((path) => path !== ENTRY_FILE)
    .map((path) => ({
      path,
      content: readFileSync(join(dir, path), 'utf8'),
      media_type: MEDIA_TYPES[path.split('.').pop() ?? ''] ?? 'text/plain',
    }));
  const content = normalizeSkillContent({ name: parsed.name, description: parsed.description, instructions: parsed.body, files });
  if (content.name !== dir.split(sep).filter(Boolean).pop()) throw new Error(`${dir}: the skill's name must be its directory's name`);
  return content;
}

let loaded: ReadonlyMap<string, SkillContent> | null = null;

/** Every built-in skill by name, in name order (read on first use). */
export function builtinSkills(): ReadonlyMap<string, SkillContent> {
  if (!loaded) {
    const names = readdirSync(BUILTIN_DIR)
      .filter((name) => statSync(join(BUILTIN_DIR, name)).isDirectory())
      .sort();
    loaded = new Map(names.map((name) => [name, loadSkill(join(BUILTIN_DIR, name))]));
  }
  return loaded;
}
