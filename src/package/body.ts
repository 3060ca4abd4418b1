/**
 * The SKILL.md body, read at activation rather than at load: a registry of thousands of skills
 * holds metadata only. A small cache keyed on the file's (size, mtime, inode) makes repeated
 * activations cheap without ever serving a stale body.
 */
import * as fs from "node:fs/promises";
import { readFrontmatter } from "./frontmatter.js";
import { readSkillFileSync, sameStamp, stampOf } from "./skill-file.js";
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

/** A body together with the stamp of the bytes it came from. */
export interface StampedBody {
  body: string;
  stamp: FileStamp;
}

/** Throws `SkillBodyError` when the file vanished or no longer parses: the caller cannot go on. */
export async function readSkillBody(skill: Pick<SkillPackage, "skillFile">): Promise<string> {
  return (await readStampedSkillBody(skill)).body;
}

/**
 * Like `readSkillBody`, with the stamp of the version read. Comparing it with the stamp a
 * registry record was built from tells a caller whether the body and that record's manifest
 * describe the same file.
 */
export async function readStampedSkillBody(skill: Pick<SkillPackage, "skillFile">): Promise<StampedBody> {
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
    return copyOf(hit);
  }
  const read = readSkillFileSync(skill.skillFile);
  if (!read.ok) throw new SkillBodyError(read.message, read.code);
  const fm = readFrontmatter(read.text, { allowRetry: true });
  if (!fm.ok) throw new SkillBodyError(fm.message, fm.code);
  // The stamp of the descriptor the bytes came through, not of the earlier `stat`: the file may
  // have been replaced in between, and the stamp must name the version this body is.
  const entry = { stamp: read.stamp, body: fm.body };
  cache.set(skill.skillFile, entry);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return copyOf(entry);
}

/** Callers get their own copy, so nothing they do can change what the cache matches on. */
function copyOf(entry: StampedBody): StampedBody {
  return { body: entry.body, stamp: { ...entry.stamp } };
}
