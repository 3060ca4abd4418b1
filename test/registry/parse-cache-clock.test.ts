/**
 * The parse cache through the library, with the clock the test sets: Node's `Date.now` reads a
 * time the test chooses around each load, so whether a file counts as settled (its ctime and
 * mtime at least 2 s old) is decided by the test, not by how fast the machine loads it. And a
 * cache directory reached through a link is neither read nor written, even one that leads to a
 * private directory of this user's.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

const T = { timeout: 120_000 };
const HOUR_MS = 3_600_000;
/** The real clock, kept before any load replaces `Date.now`. */
const realNow = Date.now.bind(Date);

/** Loads `root` once with the cache in `dir`, with `Date.now` answering `clock()` meanwhile; returns the closed runtime. */
async function loadAt(root: string, dir: string, clock: () => number): Promise<SkillRuntime> {
  const real = Date.now;
  Date.now = clock;
  try {
    const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], parseCache: { dir }, env: {} });
    await runtime.close();
    return runtime;
  } finally {
    Date.now = real;
  }
}

/** An hour from now: every file written by the test has long settled. */
const later = (): number => realNow() + HOUR_MS;

function jsonFiles(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".json")) : [];
}

test("a file whose newest stamp is exactly 2 s old (to the clock's millisecond) is cached; one millisecond younger is not", T, async () => {
  for (const [label, offsetMs, cached] of [["at the limit", 2_000, true], ["one millisecond younger", 1_999, false]] as const) {
    const base = realTempDir("skillport-cache-clock");
    const root = path.join(base, "skills");
    const file = path.join(writeSkill(root, "alpha", "name: alpha\ndescription: Alpha does one thing."), "SKILL.md");
    // Modification time an hour back: only the ctime, which that sets to now, is young.
    const past = new Date(realNow() - HOUR_MS);
    fs.utimesSync(file, past, past);
    const stat = fs.statSync(file, { bigint: true });
    const newest = stat.ctimeNs > stat.mtimeNs ? stat.ctimeNs : stat.mtimeNs;
    // The first millisecond at or after the newest stamp, as Date.now counts.
    const stampMs = Number((newest + 999_999n) / 1_000_000n);
    const dir = path.join(base, "cache");
    const first = await loadAt(root, dir, () => stampMs + offsetMs);
    assert.equal(first.stats().reads, 1, label);
    // A second load, long after: served from the cache only if the first one kept the file.
    const second = await loadAt(root, dir, later);
    assert.equal(second.stats().reads, cached ? 0 : 1, `${label}: ${cached ? "cached" : "not cached"} by the first load`);
  }
});

test("a cache directory that is a link, even to a private directory of this user's, is neither read nor written", T, async () => {
  const base = realTempDir("skillport-cache-link");
  const root = path.join(base, "skills");
  for (const name of ["alpha", "beta"]) writeSkill(root, name, `name: ${name}\ndescription: ${name} does one thing.`);
  const real = path.join(base, "private");
  const linked = path.join(base, "linked");

  // Filled through its real path: the cache works there, and serves every skill.
  assert.equal((await loadAt(root, real, later)).stats().reads, 2);
  assert.equal(fs.statSync(real).mode & 0o777, 0o700);
  assert.equal((await loadAt(root, real, later)).stats().reads, 0, "the cache serves through its own path");
  const [file] = jsonFiles(real);
  assert.ok(file);
  const text = fs.readFileSync(path.join(real, file), "utf8");

  // Through a link to it: not read (both skills parsed) and not written (the file as it was, nothing added).
  fs.symlinkSync(real, linked);
  assert.equal((await loadAt(root, linked, later)).stats().reads, 2, "nothing read through the link");
  assert.equal(fs.readFileSync(path.join(real, file), "utf8"), text);
  assert.deepEqual(fs.readdirSync(real), [file]);

  // An empty private directory behind the link gets nothing written into it.
  fs.rmSync(path.join(real, file));
  assert.equal((await loadAt(root, linked, later)).stats().reads, 2);
  assert.deepEqual(fs.readdirSync(real), [], "nothing written through the link");
});
