/**
 * The SKILL.md body, read at activation rather than at load: a registry of thousands of skills
 * holds metadata only. A small cache keyed on the file's (size, mtime, inode) makes repeated
 * activations cheap without ever serving a stale body.
 */
import * as fs from "node:fs";
import { isOutOfDescriptors, outOfDescriptorsText } from "./descriptor-limit.js";
import { readFrontmatter } from "./frontmatter.js";
import { readSkillFileSync, sameStamp, stampOf } from "./skill-file.js";
import type { FileStamp, SkillPackage } from "./types.js";

const CACHE_LIMIT = 128;
const cache = new Map<string, { stamp: FileStamp; body: string }>();

export class SkillBodyError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** The system's error code when the file system refused (e.g. `EMFILE`). */
    readonly errno?: string,
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
export async function readStampedSkillBody(skill: Pick<SkillPackage, "skillFile"> & { stamp?: FileStamp }): Promise<StampedBody> {
  let stamp: FileStamp;
  try {
    // One `stat`, synchronous: through fs/promises it cost an activation more CPU than the rest
    // of the stamp check, and a `stat` never waits on what the path names (a FIFO included).
    stamp = stampOf(fs.statSync(skill.skillFile));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (isOutOfDescriptors(code)) throw new SkillBodyError(`Cannot read ${skill.skillFile}: ${outOfDescriptorsText(code!)}`, "too_many_open_files", code);
    throw new SkillBodyError(`Cannot read ${skill.skillFile}: ${code ?? String(e)}`, "io");
  }
  const hit = cache.get(skill.skillFile);
  if (hit && sameStamp(hit.stamp, stamp)) {
    // Refresh recency so the cache behaves as an LRU.
    cache.delete(skill.skillFile);
    cache.set(skill.skillFile, hit);
    return copyOf(hit);
  }
  const version = readVersion(skill.skillFile);
  if (!version.ok) {
    // A file caught mid-save while the registry still serves its last good version (SPEC §2):
    // the body of that version, when it is still cached, is the one that goes with the record.
    if (hit && skill.stamp && sameStamp(hit.stamp, skill.stamp)) return copyOf(hit);
    throw new SkillBodyError(version.message, version.code, version.errno);
  }
  const entry = { stamp: version.stamp, body: version.body };
  cache.set(skill.skillFile, entry);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return copyOf(entry);
}

/**
 * Drops the cached body of a file known to have changed although its stamp may not show it: a
 * fix saved within the same mtime tick, at the same size, as the version cached.
 */
export function forgetSkillBody(skillFile: string): void {
  cache.delete(skillFile);
}

function readVersion(file: string): ({ ok: true } & StampedBody) | { ok: false; message: string; code: string; errno?: string } {
  const read = readSkillFileSync(file);
  if (!read.ok) return read;
  const fm = readFrontmatter(read.text, { allowRetry: true });
  if (!fm.ok) return fm;
  // The stamp of the descriptor the bytes came through, not of the earlier `stat`: the file may
  // have been replaced in between, and the stamp must name the version this body is.
  return { ok: true, body: fm.body, stamp: read.stamp };
}

/** Callers get their own copy, so nothing they do can change what the cache matches on. */
function copyOf(entry: StampedBody): StampedBody {
  return { body: entry.body, stamp: { ...entry.stamp } };
}
