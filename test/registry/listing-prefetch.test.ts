import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { ListingPrefetch, PREFETCH_IN_FLIGHT } from "../../src/registry/listing-prefetch.js";
import { tempDir } from "../support/tmp.js";

/** Turns of the event loop until nothing is on the pool (the pool's answers arrive in the loop's poll phase). */
async function idle(prefetch: ListingPrefetch<string>): Promise<void> {
  for (let turns = 0; prefetch.inFlightCount > 0; turns++) {
    assert.ok(turns < 100_000, "the pool answered every request");
    await new Promise((resume) => setImmediate(resume));
  }
}

function names(listing: unknown): string[] {
  assert.ok(Array.isArray(listing), `a listing, not ${String(listing)}`);
  return (listing as fs.Dirent[]).map((e) => `${e.name}${e.isDirectory() ? "/" : ""}`).sort();
}

test("a listing read ahead is the directory's listing, with entry types, and is taken once", async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, "SKILL.md"), "x");
  fs.mkdirSync(path.join(dir, "nested"));
  const prefetch = new ListingPrefetch<string>();
  prefetch.want([dir], [dir]);
  await idle(prefetch);
  assert.equal(prefetch.ready(dir), true);
  assert.deepEqual(names(prefetch.take(dir)), ["SKILL.md", "nested/"]);
  assert.equal(prefetch.take(dir), undefined);
  assert.equal(prefetch.ready(dir), false);
});

test("a directory taken before its listing arrives is left to the caller, and the late answer is dropped", async () => {
  const dir = tempDir();
  const prefetch = new ListingPrefetch<string>();
  prefetch.want([dir], [dir]);
  // The answer cannot have come yet: pool callbacks run in a later turn of the loop.
  assert.equal(prefetch.take(dir), undefined);
  await idle(prefetch);
  assert.equal(prefetch.ready(dir), false);
  assert.equal(prefetch.take(dir), undefined);
});

test("a directory never asked for has no listing", async () => {
  const prefetch = new ListingPrefetch<string>();
  prefetch.want(["asked"], [tempDir()]);
  await idle(prefetch);
  assert.equal(prefetch.take(tempDir()), undefined);
});

test("a listing that fails comes back as the error, for the walk to handle as its own", async () => {
  const dir = tempDir();
  const missing = path.join(dir, "gone");
  const file = path.join(dir, "file");
  fs.writeFileSync(file, "x");
  const prefetch = new ListingPrefetch<string>();
  prefetch.want([missing, file], [missing, file]);
  await idle(prefetch);
  assert.equal((prefetch.take(missing) as NodeJS.ErrnoException).code, "ENOENT");
  assert.equal((prefetch.take(file) as NodeJS.ErrnoException).code, "ENOTDIR");
});

test("at most PREFETCH_IN_FLIGHT listings are in flight or waiting to be taken; the next is read once one is taken", async () => {
  const root = tempDir();
  const dirs = Array.from({ length: PREFETCH_IN_FLIGHT + 1 }, (_, i) => {
    const dir = path.join(root, `d${i}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, `f${i}`), "");
    return dir;
  });
  const prefetch = new ListingPrefetch<string>();
  prefetch.want(dirs, dirs);
  assert.equal(prefetch.inFlightCount, PREFETCH_IN_FLIGHT);
  await idle(prefetch);
  const last = dirs.at(-1)!;
  assert.equal(dirs.filter((dir) => prefetch.ready(dir)).length, PREFETCH_IN_FLIGHT);
  assert.equal(prefetch.ready(last), false, "the walk has not taken any, so nothing more is read");
  assert.deepEqual(names(prefetch.take(dirs[0]!)), ["f0"]);
  assert.equal(prefetch.inFlightCount, 1);
  await idle(prefetch);
  dirs.slice(1).forEach((dir, i) => assert.deepEqual(names(prefetch.take(dir)), [`f${i + 1}`]));
});

test("asking twice for a directory reads it once", async () => {
  const dir = tempDir();
  const prefetch = new ListingPrefetch<string>();
  prefetch.want([dir, dir], [dir, dir]);
  assert.equal(prefetch.inFlightCount, 1);
  prefetch.want([dir], [dir]);
  assert.equal(prefetch.inFlightCount, 1);
  await idle(prefetch);
  assert.deepEqual(prefetch.take(dir), []);
});

test("after close nothing is kept and nothing more is asked", async () => {
  const first = tempDir();
  const later = tempDir();
  const prefetch = new ListingPrefetch<string>();
  prefetch.want([first], [first]);
  prefetch.close();
  prefetch.want([later], [later]);
  assert.equal(prefetch.inFlightCount, 1);
  await idle(prefetch);
  assert.equal(prefetch.take(first), undefined);
  assert.equal(prefetch.take(later), undefined);
});

test("a read-ahead made to wait asks nothing until it is started, then asks in order", async () => {
  const dir = tempDir();
  const prefetch = new ListingPrefetch<string>(false);
  prefetch.want([dir], [dir]);
  assert.equal(prefetch.inFlightCount, 0);
  await new Promise((resume) => setImmediate(resume));
  assert.equal(prefetch.ready(dir), false);
  prefetch.start();
  assert.equal(prefetch.inFlightCount, 1);
  await idle(prefetch);
  assert.deepEqual(prefetch.take(dir), []);
});
