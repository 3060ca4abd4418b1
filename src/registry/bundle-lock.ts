/**
 * The lock of a skills bundle: every file of the bundled tree with its SHA-256 and mode, in one
 * canonical text whose own SHA-256 names the bundle. Replicas that serve bundles with the same
 * name serve the same bytes; a replica can prove it by verifying its tree against the lock, and
 * the name proves the lock.
 */
import { createHash } from "node:crypto";
import { isLeftOutOfPackage } from "../package/package-shape.js";

/** The lock file, at the top of a bundle directory beside `BUNDLE_SKILLS_DIR`. */
export const BUNDLE_LOCK_FILE = "skillport-bundle.lock";
/** The bundled tree: what `--bundle` serves as its one source. */
export const BUNDLE_SKILLS_DIR = "skills";
/** A bundle directory is named by its digest with this prefix, `sha256-<64 hex>`. */
export const BUNDLE_DIGEST_PREFIX = "sha256-";

/** Modes a bundled file may have: read-only for everyone, executable or not. */
export const READ_ONLY_FILE_MODE = 0o444;
export const READ_ONLY_EXECUTABLE_MODE = 0o555;

export interface LockedFile {
  /** Relative to the bundle's `skills/` directory, `/`-separated. */
  path: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
  /** `0444` or `0555`, as the file is written. */
  mode: string;
}

export interface BundleLock {
  skillportBundle: 1;
  files: LockedFile[];
}

/** Order by UTF-8 bytes, so the lock is the same text whichever order the files were found or made in. */
export function compareLockPaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The lock's canonical text: files sorted, keys in one order, one trailing newline. */
export function lockText(files: readonly LockedFile[]): string {
  const sorted = [...files].sort((a, b) => compareLockPaths(a.path, b.path));
  const lock: BundleLock = {
    skillportBundle: 1,
    files: sorted.map((file) => ({ path: file.path, sha256: file.sha256, mode: file.mode })),
  };
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** The bundle's digest: `sha256-` and the hex SHA-256 of the lock's bytes. */
export function lockDigest(text: string | Buffer): string {
  return BUNDLE_DIGEST_PREFIX + createHash("sha256").update(text).digest("hex");
}

export function modeText(mode: number): string {
  return `0${(mode & 0o7777).toString(8)}`;
}

/**
 * Reads a lock text back, refusing anything `lockText` would not have written: a lock is the
 * bundle's authority, so a path that could leave the tree or name a left-out entry is an error,
 * not something to skip.
 */
export function parseLock(text: string): BundleLock {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`the lock is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || (value as { skillportBundle?: unknown }).skillportBundle !== 1) {
    throw new Error("the lock is not a skillport bundle lock (version 1)");
  }
  const files = (value as { files?: unknown }).files;
  if (!Array.isArray(files)) throw new Error("the lock has no file list");
  const seen = new Set<string>();
  const parsed: LockedFile[] = [];
  for (const entry of files as unknown[]) {
    const file = entry as Partial<LockedFile> | null;
    if (typeof file !== "object" || file === null || typeof file.path !== "string" || typeof file.sha256 !== "string" || typeof file.mode !== "string") {
      throw new Error("the lock holds an entry that is not { path, sha256, mode }");
    }
    const problem = lockPathProblem(file.path);
    if (problem) throw new Error(`the lock names ${JSON.stringify(file.path)}: ${problem}`);
    if (!/^[0-9a-f]{64}$/.test(file.sha256)) throw new Error(`the lock's sha256 of ${JSON.stringify(file.path)} is not 64 hex digits`);
    if (file.mode !== modeText(READ_ONLY_FILE_MODE) && file.mode !== modeText(READ_ONLY_EXECUTABLE_MODE)) {
      throw new Error(`the lock's mode of ${JSON.stringify(file.path)} is ${file.mode}, not 0444 or 0555`);
    }
    if (seen.has(file.path)) throw new Error(`the lock names ${JSON.stringify(file.path)} twice`);
    seen.add(file.path);
    parsed.push({ path: file.path, sha256: file.sha256, mode: file.mode });
  }
  return { skillportBundle: 1, files: parsed };
}

/** Why a lock path could not have been written by `bundle`, or null when it could. */
export function lockPathProblem(lockPath: string): string | null {
  if (lockPath === "" || lockPath.startsWith("/")) return "not a relative path";
  if (lockPath.includes("\0") || lockPath.includes("\\")) return "holds NUL or a backslash";
  for (const segment of lockPath.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return "holds an empty, `.` or `..` segment";
    if (isLeftOutOfPackage(segment)) return "holds a dot-entry or node_modules, which no bundle carries";
  }
  return null;
}
