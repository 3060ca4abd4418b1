/**
 * Digests of a skill package's bytes. A file's digest is what the MCP Skills Extension publishes
 * for each file (`sha256:<hex>`); a package's digest is computed from those file digests alone,
 * so a client that holds an extension entry (`resources[].digest`) can compute it without
 * reading a byte, and the lockfile of installed skills can name a package by it.
 *
 * The package digest is the SHA-256 of one line per file, `<hex>  <path>\n`, paths `/`-separated
 * and relative to the skill directory, sorted by their UTF-8 bytes: the text `sha256sum` prints
 * for the files in that order, so it can be checked with standard tools
 * (`find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum` in the skill's folder).
 */
import { createHash } from "node:crypto";
import { readPackageFiles } from "./package-files.js";
import { readCheckedFileSync } from "./regular-file.js";

export const DIGEST_PREFIX = "sha256:";

/** `sha256:` and the hex SHA-256 of the bytes: one file's digest, as the Skills Extension publishes it. */
export function fileDigest(bytes: Uint8Array): string {
  return DIGEST_PREFIX + createHash("sha256").update(bytes).digest("hex");
}

export interface DigestedFile {
  /** Relative to the skill directory, `/`-separated (`SKILL.md`, `scripts/run.py`). */
  path: string;
  /** `sha256:<hex>`, as `fileDigest` gives it. */
  digest: string;
}

/** The package digest of the files given (order does not matter). */
export function packageDigest(files: readonly DigestedFile[]): string {
  const lines = files
    .map((file) => {
      if (!file.digest.startsWith(DIGEST_PREFIX)) throw new Error(`the digest of ${file.path} is not a sha256: digest`);
      return { key: Buffer.from(file.path, "utf8"), line: `${file.digest.slice(DIGEST_PREFIX.length)}  ${file.path}\n` };
    })
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((entry) => entry.line);
  return DIGEST_PREFIX + createHash("sha256").update(lines.join(""), "utf8").digest("hex");
}

/**
 * The package digest of the skill at `dir` as it is on disk now, by the package's own rules
 * (package-files.ts); null, with the reasons, when the package holds what no install would have
 * written (a link out, a FIFO, more than the limits).
 */
export function digestOfPackage(dir: string): { digest: string | null; problems: string[] } {
  const pkg = readPackageFiles(dir);
  if (pkg.problems.length > 0) return { digest: null, problems: pkg.problems };
  const files: DigestedFile[] = [];
  for (const file of pkg.files) {
    try {
      files.push({ path: file.path, digest: fileDigest(readCheckedFileSync(file.source, file)) });
    } catch (error) {
      return { digest: null, problems: [`${file.path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`] };
    }
  }
  return { digest: packageDigest(files), problems: [] };
}
