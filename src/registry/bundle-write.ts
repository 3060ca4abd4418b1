/**
 * `bundle DIR OUT`: copies a tree of skills into an immutable, digest-named directory
 * `OUT/sha256-<hex>/` (the tree under `skills/`, its lock beside it). The copy is built in a
 * temporary directory inside OUT and renamed into place in one step, so OUT never holds a
 * partial bundle, and an existing bundle is never overwritten. Writing a tree whose bundle is
 * already there, intact, is not a failure: the digest names the content, so the bundle asked for
 * exists (a deploy script may run twice); one that is there but does not match its lock is refused.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isLeftOutOfPackage, SKILL_FILE_NAMES } from "../package/package-shape.js";
import {
  BUNDLE_LOCK_FILE,
  BUNDLE_SKILLS_DIR,
  lockDigest,
  lockPathProblem,
  lockText,
  modeText,
  READ_ONLY_EXECUTABLE_MODE,
  READ_ONLY_FILE_MODE,
  type LockedFile,
} from "./bundle-lock.js";
import { verifyBundle } from "./bundle-verify.js";
import { isInside, type PrivateRoot } from "./discover.js";

export interface BundleResult {
  /** `sha256-<hex>`, the digest of the lock and the bundle directory's name. */
  digest: string;
  /** The bundle directory, `OUT/<digest>`. */
  dir: string;
  files: number;
  bytes: number;
  /** Entries not bundled, with why (links leading out of DIR, non-regular files, link loops). */
  skipped: Array<{ path: string; reason: string }>;
  /** The same bundle was already in OUT, whole and matching its lock: nothing was written. */
  unchanged: boolean;
}

/** A bundle that cannot be written as asked; `usage` when DIR or OUT is not what the command needs. */
export class BundleError extends Error {
  constructor(
    message: string,
    readonly kind: "usage" | "refused",
  ) {
    super(message);
    this.name = "BundleError";
  }
}

export interface BundleOptions {
  /**
   * The real directories of agent sources (`privateRootsOf` the configuration's sources): what
   * lies in one is that agent's private skills, and is never bundled.
   */
  privateRoots?: readonly PrivateRoot[];
}

/**
 * Bundles `sourceDir` (a folder of skills, or one skill directory, which is bundled as
 * `skills/<its name>/`) into `outDir`. What is copied follows the package rules: dot-entries and
 * `node_modules` are left out, symlinks are followed while they stay inside `sourceDir` and
 * skipped (and reported) when they lead out of it, so a bundle carries nothing its skills do not
 * ship.
 *
 * An agent's private skills are never bundled. A bundle is served as one `global` source, to
 * every agent, so a private folder copied into it would be published to all of them: one lying
 * in DIR (or reached by a link in it) is skipped and reported, and a DIR lying in one is refused.
 */
export async function writeBundle(sourceDir: string, outDir: string, options: BundleOptions = {}): Promise<BundleResult> {
  const source = realDirectory(sourceDir, "DIR");
  const privateRoots = options.privateRoots ?? [];
  const holding = (real: string): PrivateRoot | undefined => privateRoots.find((root) => isInside(real, root.path));
  const sourceHolder = holding(source);
  if (sourceHolder) {
    throw new BundleError(`DIR (${source}) lies in ${privateText(sourceHolder)}; a bundle is served to every agent, so it is not written`, "refused");
  }
  // Checked before OUT is created, so a refused OUT leaves no empty directory inside DIR.
  const wouldBe = realPathToBe(path.resolve(outDir));
  if (isInside(wouldBe, source)) {
    throw new BundleError(`OUT (${wouldBe}) lies inside DIR (${source}); a bundle written there would be bundled again`, "usage");
  }
  fs.mkdirSync(outDir, { recursive: true });
  const out = realDirectory(outDir, "OUT");
  const prefix = SKILL_FILE_NAMES.some((name) => isRegularFile(path.join(source, name))) ? `${path.basename(source)}/` : "";

  // A dot-name inside OUT: never served, never bundled by a later run, and easy to tell apart.
  const temp = fs.mkdtempSync(path.join(out, ".bundle-"));
  try {
    const files: LockedFile[] = [];
    const skipped: BundleResult["skipped"] = [];
    let bytes = 0;
    const skillsDir = path.join(temp, BUNDLE_SKILLS_DIR);
    fs.mkdirSync(skillsDir);

    const copyTree = (dir: string, relative: string, chain: readonly string[]): void => {
      const entries = fs.readdirSync(dir).sort();
      for (const name of entries) {
        if (isLeftOutOfPackage(name)) continue;
        const from = path.join(dir, name);
        const to = relative + name;
        const nameProblem = lockPathProblem(to);
        if (nameProblem) {
          skipped.push({ path: to, reason: `its name ${nameProblem}` });
          continue;
        }
        let stat = fs.lstatSync(from);
        let real = from;
        if (stat.isSymbolicLink()) {
          try {
            real = fs.realpathSync.native(from);
            stat = fs.statSync(real);
          } catch {
            skipped.push({ path: to, reason: "a link to nothing" });
            continue;
          }
          if (!isInside(real, source)) {
            skipped.push({ path: to, reason: "a link leading out of DIR" });
            continue;
          }
        }
        const holder = holding(real);
        if (holder) {
          skipped.push({ path: to, reason: `${privateText(holder)}: a bundle is served to every agent` });
          continue;
        }
        if (stat.isDirectory()) {
          if (chain.some((ancestor) => isInside(ancestor, real))) {
            skipped.push({ path: to, reason: "a link back to a directory above it (a loop)" });
            continue;
          }
          fs.mkdirSync(path.join(skillsDir, to));
          copyTree(real, `${to}/`, [...chain, real]);
        } else if (stat.isFile()) {
          const mode = (stat.mode & 0o111) !== 0 ? READ_ONLY_EXECUTABLE_MODE : READ_ONLY_FILE_MODE;
          const content = fs.readFileSync(real);
          writeReadOnly(path.join(skillsDir, to), content, mode);
          files.push({ path: to, sha256: createHash("sha256").update(content).digest("hex"), mode: modeText(mode) });
          bytes += content.length;
        } else {
          skipped.push({ path: to, reason: "not a regular file" });
        }
      }
    };

    if (prefix !== "") fs.mkdirSync(path.join(skillsDir, prefix));
    copyTree(source, prefix, [source]);

    const lock = lockText(files);
    writeReadOnly(path.join(temp, BUNDLE_LOCK_FILE), Buffer.from(lock, "utf8"), READ_ONLY_FILE_MODE);
    syncDirectory(temp);
    const digest = lockDigest(lock);
    const target = path.join(out, digest);
    const result: BundleResult = { digest, dir: target, files: files.length, bytes, skipped, unchanged: false };
    if (exists(target)) return await alreadyThere(target, temp, result);
    try {
      fs.renameSync(temp, target);
    } catch (error) {
      // An empty directory made in the meantime would be replaced by rename(2); a full one refuses it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST") return await alreadyThere(target, temp, result);
      throw error;
    }
    syncDirectory(out);
    return result;
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

function privateText(root: PrivateRoot): string {
  const agents = root.owners.map((owner) => `'${owner}'`).join(", ");
  return `the private skills of agent${root.owners.length === 1 ? "" : "s"} ${agents} (an agent source)`;
}

/** The bundle is in OUT already: fine when it matches its lock and its name, refused otherwise. */
async function alreadyThere(target: string, temp: string, result: BundleResult): Promise<BundleResult> {
  const check = await verifyBundle(target);
  if (check.problems.length > 0) {
    throw new BundleError(`${target} already exists and does not match its lock (${check.problems[0]}); a bundle is never overwritten`, "refused");
  }
  fs.rmSync(temp, { recursive: true, force: true });
  return { ...result, unchanged: true };
}

function realDirectory(dir: string, role: string): string {
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(dir));
  } catch {
    throw new BundleError(`${role} ${dir} does not exist`, "usage");
  }
  if (!fs.statSync(real).isDirectory()) throw new BundleError(`${role} ${dir} is not a directory`, "usage");
  return real;
}

/** The real path `dir` will have: its nearest existing ancestor resolved, the rest appended. */
function realPathToBe(dir: string): string {
  const rest: string[] = [];
  let current = dir;
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return dir;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** Written exclusively (nothing is ever overwritten), made read-only, and on disk before the rename publishes it. */
function writeReadOnly(file: string, content: Buffer, mode: number): void {
  const fd = fs.openSync(file, "wx", 0o600);
  try {
    fs.writeFileSync(fd, content);
    // The umask could narrow a mode given to open; fchmod sets exactly what the lock records.
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function isRegularFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
