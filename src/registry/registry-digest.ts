/**
 * What a replica reports it serves, so replicas behind one load balancer can be compared: the
 * bundle's digest when it serves a bundle (every byte of every file, proven by the lock), else a
 * digest of the loaded skills computed here: each winning skill's origin, owner, name and the
 * SHA-256 of its SKILL.md. That second kind says whether replicas offer the same skills with
 * the same instructions; it does not cover resource files, which only a bundle pins (reading
 * every file of a large tree at each start would cost more than the answer is worth).
 */
import { createHash } from "node:crypto";
import { readSkillFileSync } from "../package/skill-file.js";
import { compareNames, compareOrigins } from "./order.js";
import { TimeSlicer } from "./time-slice.js";
import type { RegisteredSkill, RegistrySnapshot } from "./types.js";

/** Prefix of a digest computed over loaded skills, so it is never mistaken for a bundle's. */
export const LOADED_DIGEST_PREFIX = "loaded-sha256-";

const computed = new WeakMap<RegistrySnapshot, Promise<string>>();

/** The loaded-skills digest of a snapshot; computed once per snapshot. */
export function loadedSkillsDigest(snapshot: RegistrySnapshot): Promise<string> {
  let digest = computed.get(snapshot);
  if (!digest) {
    digest = computeDigest(snapshot.skills);
    computed.set(snapshot, digest);
  }
  return digest;
}

async function computeDigest(skills: readonly RegisteredSkill[]): Promise<string> {
  // Paths differ between machines; what a skill is to a client is its scope, name and text.
  const ordered = [...skills].sort(
    (a, b) => compareOrigins(a.origin, b.origin) || compareNames(a.agentId ?? "", b.agentId ?? "") || compareNames(a.projectId ?? "", b.projectId ?? "") || compareNames(a.name, b.name),
  );
  // Read one file at a time, in time slices: a promise per file for 10,000 files cost seconds
  // and held every file at once, and the slices keep the event loop answering meanwhile.
  const slicer = new TimeSlicer();
  const lines: string[] = [];
  for (const skill of ordered) {
    // The loader's own read: a FIFO planted since the scan must not hang the server, and a file
    // over the limit is not read. Its text is checked UTF-8, so it hashes to the file's bytes.
    const read = readSkillFileSync(skill.skillFile);
    // A skill gone since the scan is part of what this replica serves: a failed read, not a digest.
    const fileDigest = read.ok ? createHash("sha256").update(read.text, "utf8").digest("hex") : "unreadable";
    lines.push(JSON.stringify([skill.origin, skill.agentId ?? null, skill.projectId ?? null, skill.name, fileDigest]));
    if (slicer.due()) await slicer.yield();
  }
  return LOADED_DIGEST_PREFIX + createHash("sha256").update(lines.join("\n")).digest("hex");
}
