/**
 * The SKILL.md body, read at activation rather than at load: a registry of thousands of skills
 * holds metadata only. A small cache keyed on the file's (size, mtime, inode) makes repeated
 * activations cheap without ever serving a stale body.
 */
import * as fs from "node:fs/promises";
import { readFrontmatter } from "./frontmatter.js";
import { readSkillFileSync, stampOf } from "./skill-file.js";
import type { FileStamp, SkillPackage } from "./types.js";

const CACHE_LIMIT = 128;
const cache = new Map<string, { stamp: FileStamp; body: string }>();

export class SkillBodyError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Throws `SkillBodyError` when the file vanished or no longer parses: the caller cannot go on. */
export async function readSkillBody(skill: Pick<SkillPackage, "skillFile">): Promise<string> {
  let stamp: FileStamp;
  try {
    stamp = stampOf(await fs.stat(skill.skillFile));
  } catch (e) {
    throw new SkillBodyError(`Cannot read ${skill.skillFile}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, "io");
  }
  const hit = cache.get(skill.skillFile);
  if (hit && sameStamp(hit.stamp, stamp)) {
    // Refresh recency so the cache behaves as an LRU.
    cache.delete(skill.skillFile);
    cache.set(skill.skillFile, hit);
    return hit.body;
  }
  const read = readSkillFileSync(skill.skillFile);
  if (!read.ok) throw new SkillBodyError(read.message, read.code);
  const fm = readFrontmatter(read.text, { allowRetry: true });
  if (!fm.ok) throw new SkillBodyError(fm.message, fm.code);
  cache.set(skill.skillFile, { stamp: read.stamp, body: fm.body });
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return fm.body;
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}
