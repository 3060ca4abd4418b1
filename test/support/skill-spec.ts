/** Skill directories written from a short spec: name and description in the frontmatter, a body, extra files. */
import * as fs from "node:fs";
import * as path from "node:path";

export interface SkillSpec {
  description?: string;
  body?: string;
  /** Extra frontmatter lines, written as given. */
  frontmatter?: string;
  /** Skill-relative path → content. */
  files?: Record<string, string | Buffer>;
}

/** Writes `root/name/SKILL.md` (and any files) and returns the skill directory. */
export function makeSkill(root: string, name: string, spec: SkillSpec = {}): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  const lines = ["---", `name: ${name}`, `description: ${spec.description ?? `Does ${name} things.`}`];
  if (spec.frontmatter) lines.push(spec.frontmatter);
  lines.push("---", "", spec.body ?? `# ${name}\n\nFollow these steps.`, "");
  fs.writeFileSync(path.join(dir, "SKILL.md"), lines.join("\n"));
  for (const [rel, content] of Object.entries(spec.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}
