/**
 * `computedHash`, the folder hash the `skills` CLI (npm `skills`, 1.7.4) records in
 * `skills-lock.json` (SPEC §10.1): SHA-256 over every regular file of the folder, each as its
 * relative `/`-separated path then its bytes, files sorted with `localeCompare`, folders named
 * `.git` and `node_modules` skipped, links (to files or folders) not followed and not counted.
 * Computed exactly as that CLI does so either tool can check what the other installed; it is
 * not skillport's package digest (package-digest.ts), which follows the package rules instead.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** The hex hash of the folder at `dir`, or null when it cannot be read whole. */
export function computedHashOf(dir: string): string | null {
  const files: Array<{ relativePath: string; file: string }> = [];
  try {
    collect(dir, dir, files);
  } catch {
    return null;
  }
  // The other CLI sorts with the default collation, not by code units: the same call keeps the same order.
  files.sort((a, b) => a.relativePath.localeCompare(b.relativePath));
  const hash = createHash("sha256");
  try {
    for (const { relativePath, file } of files) {
      hash.update(relativePath);
      hash.update(fs.readFileSync(file));
    }
  } catch {
    return null;
  }
  return hash.digest("hex");
}

function collect(base: string, current: string, out: Array<{ relativePath: string; file: string }>): void {
  for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
    const full = path.join(current, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) collect(base, full, out);
    } else if (entry.isFile()) {
      out.push({ relativePath: path.relative(base, full).split(path.sep).join("/"), file: full });
    }
  }
}

/** A hex SHA-256, as `computedHash` is written. */
export function isComputedHash(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}
