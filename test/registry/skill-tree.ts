/** Builds real skill trees in temporary directories for registry and access tests. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestContext } from "node:test";

/** A fresh temporary directory, removed when the test ends. */
export function tempDir(t: TestContext, prefix = "skillport-registry-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A fresh temporary directory in memory (`/dev/shm`) where there is one, else as `tempDir`: a
 * tree of thousands of skills costs seconds to write and remove on a busy disk, milliseconds there.
 */
export function memoryTempDir(t: TestContext, prefix = "skillport-registry-"): string {
  let base = os.tmpdir();
  try {
    fs.accessSync("/dev/shm", fs.constants.W_OK);
    if (fs.statSync("/dev/shm").isDirectory()) base = "/dev/shm";
  } catch {
    // No shared memory here: the ordinary temporary directory will do, only slower.
  }
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface SkillSpec {
  description?: string;
  /** Extra frontmatter lines, as YAML text. */
  frontmatter?: string;
  body?: string;
  /** Write the lowercase `skill.md` instead of `SKILL.md`. */
  lowercase?: boolean;
}

/** Writes `parent/name/SKILL.md` (creating directories) and returns the skill directory. */
export function writeSkill(parent: string, name: string, spec: SkillSpec = {}): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  const lines = ["---", `name: ${name}`, `description: ${spec.description ?? `Does ${name} things.`}`];
  if (spec.frontmatter) lines.push(spec.frontmatter.trimEnd());
  lines.push("---", "", spec.body ?? `# ${name}\n\nSteps for ${name}.`, "");
  fs.writeFileSync(path.join(dir, spec.lowercase ? "skill.md" : "SKILL.md"), lines.join("\n"));
  return dir;
}

export function names(skills: readonly { name: string }[]): string[] {
  return skills.map((s) => s.name);
}
