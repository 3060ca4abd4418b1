/**
 * Every file of a skill package judged (SPEC §12): the files the package layer ships
 * (package-files.ts: never a link out of the skill, nothing left out of a package), read
 * bounded, SKILL.md with its frontmatter rules and every other file by its bytes.
 */
import * as fs from "node:fs/promises";
import { readFrontmatter } from "../package/frontmatter.js";
import { MAX_AUTHORED_FILE_BYTES, MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES } from "../package/limits.js";
import { readPackageFiles } from "../package/package-files.js";
import { SKILL_FILE_NAMES } from "../package/package-shape.js";
import { auditBytes, auditSkillMd, byLine, executableFormat, textOf } from "./scan.js";
import type { Finding } from "./types.js";

export interface PackageAuditOptions {
  /** Files judged at most (default the package limit, 512). */
  maxFiles?: number;
  /** Bytes read at most, over all files (default the package limit, 16 MiB). */
  maxBytes?: number;
}

export async function auditPackage(dir: string, options: PackageAuditOptions = {}): Promise<Finding[]> {
  const maxFiles = options.maxFiles ?? MAX_PACKAGE_FILES + 1;
  let budget = options.maxBytes ?? MAX_PACKAGE_BYTES;
  const listing = readPackageFiles(dir);
  const out: Finding[] = [];
  for (const file of listing.files.slice(0, maxFiles)) {
    if (budget <= 0) break;
    // Text past the authored-file limit is not served whole anyway; its start still shows the magic bytes.
    const bytes = await readHead(file.source, Math.min(budget, MAX_AUTHORED_FILE_BYTES));
    if (bytes === null) continue;
    budget -= bytes.length;
    if (SKILL_FILE_NAMES.includes(file.path)) {
      const text = textOf(bytes);
      if (text !== null && executableFormat(bytes) === null) {
        const fm = readFrontmatter(text, { allowRetry: true });
        out.push(...auditSkillMd(text, fm.ok ? fm.data : null));
        continue;
      }
    }
    out.push(...auditBytes(file.path, bytes));
  }
  return out.sort(byLine);
}

async function readHead(file: string, max: number): Promise<Uint8Array | null> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, "r");
    const buffer = new Uint8Array(max);
    let filled = 0;
    while (filled < max) {
      const { bytesRead } = await handle.read(buffer, filled, max - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } catch {
    // A file that vanished or cannot be read since it was listed has nothing to judge.
    return null;
  } finally {
    await handle?.close();
  }
}
