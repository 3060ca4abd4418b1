/** Skills that the CLI and MCP server trees both hold: one with resources, one plain, one gated on a variable. */
import * as fs from "node:fs";
import * as path from "node:path";
import { writeSkill } from "./tmp.js";

/** An environment variable no test sets, so a skill requiring it is always unavailable. */
export const MISSING_ENV = "SKILLPORT_TEST_NEVER_SET";

/** Writes `root/name` with `scripts/run.sh` and `references/guide.md` (holding `guide`); returns its directory. */
export function writeSkillWithResources(root: string, name: string, frontmatter: string, body: string, guide: string): string {
  const dir = writeSkill(root, name, frontmatter, body);
  fs.mkdirSync(path.join(dir, "scripts"));
  fs.writeFileSync(path.join(dir, "scripts", "run.sh"), `#!/bin/sh\necho ${name}\n`);
  fs.mkdirSync(path.join(dir, "references"));
  fs.writeFileSync(path.join(dir, "references", "guide.md"), guide);
  return dir;
}

/** Writes `root/beta`, a plain valid skill. */
export function writeBetaSkill(root: string): string {
  return writeSkill(root, "beta", "name: beta\ndescription: Beta handles the second kind of task.");
}

/** Writes `root/gated`, a skill that requires {@link MISSING_ENV}. */
export function writeGatedSkill(root: string, description: string): string {
  return writeSkill(root, "gated", `name: gated\ndescription: ${description}\nmetadata:\n  requirements:\n    env: ${MISSING_ENV}`);
}
