/**
 * Real git repositories for install tests: `git init` in a temp folder, commits made with the
 * git binary, reached through `file://` URLs, so nothing touches the network. The machine's own
 * git configuration is kept out (`GIT_CONFIG_GLOBAL=/dev/null`, no system config) and each
 * repository carries its own author, so the tests behave the same for any user, root included.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

/** The environment git (and the CLI's git) runs with in tests. */
export const GIT_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
};

export function git(repo: string, ...args: string[]): string {
  return execFileSync("git", ["-C", repo, ...args], { env: { ...process.env, ...GIT_ENV }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** An empty repository on branch `main`, with its own author and file protocol allowed. */
export function initRepo(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "--quiet", "--initial-branch=main", dir], { env: { ...process.env, ...GIT_ENV } });
  git(dir, "config", "user.name", "Skill Author");
  git(dir, "config", "user.email", "author@example.com");
  git(dir, "config", "protocol.file.allow", "always");
  return dir;
}

/** Commits everything in the work tree; returns the commit's full name. */
export function commitAll(repo: string, message: string): string {
  git(repo, "add", "--all");
  git(repo, "commit", "--quiet", "--allow-empty", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

export function fileUrl(dir: string): string {
  return pathToFileURL(dir).href;
}

/** Writes `root/rel/SKILL.md` with a valid frontmatter for the folder's name, plus any extra files. */
export function writeRepoSkill(root: string, rel: string, body = "Do the thing.\n", files: Record<string, string> = {}): string {
  const dir = path.join(root, ...rel.split("/"));
  const name = path.basename(dir);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}`);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
