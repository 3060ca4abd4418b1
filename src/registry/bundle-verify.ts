/**
 * Checks a bundle directory against its lock and its name: every locked file present, a regular
 * file (not a link), with the locked bytes and mode, nothing else in the tree, and the directory
 * named by the lock's digest. A replica refuses to serve a bundle that fails, because two
 * replicas reporting one digest must be serving the same bytes.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { BUNDLE_LOCK_FILE, BUNDLE_SKILLS_DIR, lockDigest, modeText, parseLock } from "./bundle-lock.js";

export interface BundleCheck {
  /** The lock's digest (`sha256-<hex>`), or null when the lock could not be read. */
  digest: string | null;
  /** The bundle's `skills/` directory, the one source a replica serves. */
  skillsDir: string;
  files: number;
  /** Every difference found, one sentence each; empty when the bundle is intact. */
  problems: string[];
}

export async function verifyBundle(bundleDir: string): Promise<BundleCheck> {
  const dir = fs.realpathSync.native(path.resolve(bundleDir));
  const skillsDir = path.join(dir, BUNDLE_SKILLS_DIR);
  const problems: string[] = [];
  let text: Buffer;
  try {
    text = fs.readFileSync(path.join(dir, BUNDLE_LOCK_FILE));
  } catch (error) {
    return { digest: null, skillsDir, files: 0, problems: [`cannot read ${BUNDLE_LOCK_FILE}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`] };
  }
  let lock;
  try {
    lock = parseLock(text.toString("utf8"));
  } catch (error) {
    return { digest: null, skillsDir, files: 0, problems: [(error as Error).message] };
  }
  const digest = lockDigest(text);
  // The name is what a deploy refers to; a lock edited to match a changed tree no longer matches it.
  if (path.basename(dir) !== digest) problems.push(`the directory is named ${path.basename(dir)}, but its lock's digest is ${digest}`);

  const locked = new Map(lock.files.map((file) => [file.path, file]));
  const found = new Set<string>();
  const walk = (current: string, relative: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch (error) {
      problems.push(`cannot read ${relative || "skills/"}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return;
    }
    for (const entry of entries) {
      const rel = relative + entry.name;
      if (entry.isDirectory()) walk(path.join(current, entry.name), `${rel}/`);
      else if (!locked.has(rel)) problems.push(`${rel} is not in the lock`);
      else found.add(rel);
    }
  };
  walk(skillsDir, "");

  for (const file of lock.files) {
    if (!found.has(file.path)) {
      problems.push(`${file.path} is missing`);
      continue;
    }
    const full = path.join(skillsDir, file.path);
    const stat = fs.lstatSync(full);
    if (!stat.isFile()) {
      problems.push(`${file.path} is not a regular file`);
      continue;
    }
    if (modeText(stat.mode) !== file.mode) problems.push(`${file.path} has mode ${modeText(stat.mode)}, the lock says ${file.mode}`);
    const sha256 = await fileSha256(full);
    if (sha256 !== file.sha256) problems.push(`${file.path} has changed (sha256 ${sha256}, the lock says ${file.sha256})`);
  }
  return { digest, skillsDir, files: lock.files.length, problems };
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
