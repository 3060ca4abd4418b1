import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const created: string[] = [];

// Removal waits for the process to exit instead of using a test `after()`: one registered
// from inside a hook would run when that hook ends, deleting the directory before any test used
// it. Each test file runs in its own process, so this is still "when the test file finishes".
function removeCreated(): void {
  for (const dir of created) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`could not remove temp dir ${dir}: ${(error as Error).message}\n`);
    }
  }
}

/** A temp directory removed when the test file finishes; safe to call from a hook. */
export function tempDir(prefix = "skillport-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (created.length === 0) process.once("exit", removeCreated);
  created.push(dir);
  return dir;
}

/** A temp directory by its real path (skills record real paths), removed when the test file finishes. */
export function realTempDir(prefix: string): string {
  return fs.realpathSync(tempDir(`${prefix}-`));
}

/** Writes a skill directory `root/name` with the given frontmatter lines and body; returns its path. */
export function writeSkill(root: string, dirName: string, frontmatter: string, body = "# Body\n\nDo the thing.\n"): string {
  const dir = path.join(root, dirName);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `---\n${frontmatter.trim()}\n---\n\n${body}`);
  return dir;
}

/** Twelve real Apache-2.0 skills (see test/fixtures/README.md). */
export const CORPUS = path.resolve(import.meta.dirname, "../fixtures/anthropics-skills");
export const EXAMPLES = path.resolve(import.meta.dirname, "../../examples/skills");
