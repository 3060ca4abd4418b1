import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after } from "node:test";

/** A temp directory removed when the test file finishes. */
export function tempDir(prefix = "skillport-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a skill directory `root/name` with the given frontmatter lines and body; returns its path. */
export function writeSkill(root: string, dirName: string, frontmatter: string, body = "# Body\n\nDo the thing.\n"): string {
  const dir = path.join(root, dirName);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `---\n${frontmatter.trim()}\n---\n\n${body}`);
  return dir;
}

export const CORPUS = path.resolve(import.meta.dirname, "../../../shared/corpus/anthropics-skills");
export const EXAMPLES = path.resolve(import.meta.dirname, "../../examples/skills");
