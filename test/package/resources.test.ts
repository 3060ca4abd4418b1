import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { readConfinedFile } from "../../src/package/confined-read.js";
import {
  listResources,
  listResourcesNow,
  MAX_RESOURCE_DEPTH,
  MAX_RESOURCE_DIRECTORIES,
  MAX_RESOURCE_ENTRIES,
  MAX_RESOURCE_ENTRIES_READ,
} from "../../src/package/resources.js";
import { CORPUS, EXAMPLES, realTempDir, writeSkill } from "../support/tmp.js";
import { countLoopTurns } from "../support/loop-turns.js";

const root = realTempDir("skillport-resources");

function put(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
}

/** Every regular file below `dir` other than its SKILL.md, relative with `/`, sorted as the listing walks. */
function filesOnDisk(dir: string, rel = ""): string[] {
  const names = fs.readdirSync(path.join(dir, rel)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.flatMap((name) => {
    const child = rel === "" ? name : `${rel}/${name}`;
    if (child === "SKILL.md") return [];
    return fs.statSync(path.join(dir, child)).isDirectory() ? filesOnDisk(dir, child) : [child];
  });
}

test("scripts are absolute, every other file skill-relative", async () => {
  const dir = path.join(EXAMPLES, "release-notes");
  assert.deepEqual(await listResources(dir), {
    scripts: [path.join(dir, "scripts", "changes.sh")],
    files: ["assets/template.md", "references/style.md"],
    truncated: false,
  });
});

test("the listing is the whole package: root files and any folder, not SKILL.md, dot-entries or node_modules", async () => {
  const dir = writeSkill(root, "whole", "name: whole\ndescription: d");
  put(dir, {
    "forms.md": "x",
    "LICENSE.txt": "x",
    "themes/arctic-frost.md": "x",
    "reference/guide.md": "x",
    "scripts/tool/run.py": "x",
    ".env": "x",
    ".git/config": "x",
    "themes/.draft.md": "x",
    "node_modules/pkg/index.js": "x",
    "references/node_modules/x.js": "x",
  });
  assert.deepEqual(await listResources(dir), {
    scripts: [path.join(dir, "scripts", "tool", "run.py")],
    files: ["LICENSE.txt", "forms.md", "reference/guide.md", "themes/arctic-frost.md"],
    truncated: false,
  });
});

test("every file of the twelve Anthropic skills is listed", async () => {
  const names = fs.readdirSync(CORPUS);
  assert.equal(names.length, 12);
  for (const name of names) {
    const listing = await listResources(path.join(CORPUS, name));
    assert.deepEqual([...listing.files], filesOnDisk(path.join(CORPUS, name)), name);
    assert.deepEqual(listing.scripts, [], name);
    assert.equal(listing.truncated, false, name);
  }
});

test(`${MAX_RESOURCE_ENTRIES} files are listed whole; one more and the listing says it is cut`, async () => {
  const dir = writeSkill(root, "entries", "name: entries\ndescription: d");
  for (let i = 0; i < MAX_RESOURCE_ENTRIES; i++) put(dir, { [`references/r${String(i).padStart(3, "0")}.md`]: "x" });
  const whole = await listResources(dir);
  assert.equal(whole.files.length, MAX_RESOURCE_ENTRIES);
  assert.equal(whole.truncated, false);
  put(dir, { "zz.md": "x" });
  const cut = await listResources(dir);
  assert.equal(cut.files.length, MAX_RESOURCE_ENTRIES);
  assert.equal(cut.truncated, true);
  assert.ok(!cut.files.includes("zz.md"));
});

test(`a file ${MAX_RESOURCE_DEPTH} directories down is listed; ${MAX_RESOURCE_DEPTH + 1} down is not, and the listing says it is cut`, async () => {
  const atLimit = writeSkill(root, "depth-limit", "name: depth-limit\ndescription: d");
  const fiveDeep = `${["1", "2", "3", "4", "5"].slice(0, MAX_RESOURCE_DEPTH).join("/")}/file.md`;
  put(atLimit, { [fiveDeep]: "x" });
  assert.deepEqual(await listResources(atLimit), { scripts: [], files: [fiveDeep], truncated: false });

  const past = writeSkill(root, "depth-past", "name: depth-past\ndescription: d");
  put(past, { [fiveDeep]: "x", [fiveDeep.replace("file.md", "6/file.md")]: "x" });
  assert.deepEqual(await listResources(past), { scripts: [], files: [fiveDeep], truncated: true });
});

test(`at most ${MAX_RESOURCE_DIRECTORIES} directories are read, the skill directory included`, async () => {
  const dir = writeSkill(root, "dirs", "name: dirs\ndescription: d");
  const subdir = (i: number): void => put(dir, { [`d${String(i).padStart(3, "0")}/f.md`]: "x" });
  for (let i = 0; i < MAX_RESOURCE_DIRECTORIES - 1; i++) subdir(i);
  const whole = await listResources(dir);
  assert.equal(whole.files.length, MAX_RESOURCE_DIRECTORIES - 1);
  assert.equal(whole.truncated, false);
  subdir(MAX_RESOURCE_DIRECTORIES - 1);
  const cut = await listResources(dir);
  assert.equal(cut.files.length, MAX_RESOURCE_DIRECTORIES - 1);
  assert.equal(cut.truncated, true);
});

test(`at most ${MAX_RESOURCE_ENTRIES_READ} directory entries are read in all`, async () => {
  // Dot-entries are read and left out, so they spend this bound alone. SKILL.md and kept.md are two.
  const dir = writeSkill(root, "entries-read", "name: entries-read\ndescription: d");
  fs.writeFileSync(path.join(dir, "kept.md"), "x");
  for (let i = 0; i < MAX_RESOURCE_ENTRIES_READ - 2; i++) fs.writeFileSync(path.join(dir, `.e${i}`), "");
  assert.deepEqual(await listResources(dir), { scripts: [], files: ["kept.md"], truncated: false });
  fs.writeFileSync(path.join(dir, ".one-more"), "");
  assert.equal((await listResources(dir)).truncated, true);
});

test("a folder of thousands of directories is walked in bounded steps that let the event loop run", async () => {
  const dir = writeSkill(root, "wide", "name: wide\ndescription: d");
  const wide = path.join(dir, "references");
  fs.mkdirSync(wide);
  const count = MAX_RESOURCE_ENTRIES_READ + 10;
  for (let i = 0; i < count; i++) fs.mkdirSync(path.join(wide, `d${String(i).padStart(5, "0")}`));
  put(dir, { [`references/d${String(count - 1).padStart(5, "0")}/last.md`]: "x", "a.md": "x" });
  const loop = countLoopTurns();
  const listing = await listResources(dir);
  const turns = loop.stop();
  assert.deepEqual(listing, { scripts: [], files: ["a.md"], truncated: true });
  // One directory read at a time, each off the loop: the loop turned between them.
  assert.ok(turns > 100, `the event loop turned ${turns} times during the walk`);
});

test("a listing is kept while its directories are unchanged, and walked again once one changes", async () => {
  const dir = writeSkill(root, "kept", "name: kept\ndescription: d");
  put(dir, { "references/a.md": "x", "themes/t.md": "x" });
  // A directory changed in the last two seconds cannot vouch for a listing (coarse file times).
  assert.notEqual(await listResources(dir), await listResources(dir), "a package just written is walked each time");
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const first = await listResources(dir);
  assert.equal(await listResources(dir), first, "the same listing, not a new walk");
  put(dir, { "themes/u.md": "x" });
  assert.deepEqual((await listResources(dir)).files, ["references/a.md", "themes/t.md", "themes/u.md"]);
});

test("a package of many directories is kept and walked again once one changes, as a small one is", async () => {
  // Past the directories checked with synchronous stats, the check runs off the event loop: same rule.
  const dir = writeSkill(root, "kept-wide", "name: kept-wide\ndescription: d");
  const files: Record<string, string> = {};
  for (let i = 0; i < 24; i++) files[`themes/t${String(i).padStart(2, "0")}/a.md`] = "x";
  put(dir, files);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const first = await listResources(dir);
  assert.equal(first.files.length, 24);
  assert.equal(await listResources(dir), first, "the same listing, not a new walk");
  put(dir, { "themes/t23/b.md": "x" });
  const again = await listResources(dir);
  assert.notEqual(again, first);
  assert.deepEqual(again.files.slice(-2), ["themes/t23/a.md", "themes/t23/b.md"]);
});

test("a listing is not kept across a SKILL.md directory swapped for another (rename over it)", async () => {
  const dir = writeSkill(root, "swapped", "name: swapped\ndescription: d");
  put(dir, { "references/a.md": "x" });
  const other = writeSkill(root, "swapped-next", "name: swapped\ndescription: d");
  put(other, { "references/b.md": "x" });
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  assert.deepEqual((await listResources(dir)).files, ["references/a.md"]);
  assert.deepEqual((await listResources(dir)).files, ["references/a.md"]);
  fs.rmSync(dir, { recursive: true });
  fs.renameSync(other, dir);
  assert.deepEqual((await listResources(dir)).files, ["references/b.md"]);
});

test("concurrent listings of one directory share one walk", () => {
  const dir = path.join(EXAMPLES, "release-notes");
  assert.equal(listResources(dir), listResources(dir));
});

test("a nested skill's files are left to it; a SKILL.md inside a resource folder is just a file", async () => {
  const dir = writeSkill(root, "outer", "name: outer\ndescription: d");
  put(dir, {
    "guide.md": "x",
    "inner/SKILL.md": "---\nname: inner\ndescription: d\n---\n",
    "inner/notes.md": "x",
    "group/deeper/SKILL.md": "---\nname: deeper\ndescription: d\n---\n",
    "group/deeper/x.md": "x",
    "group/kept.md": "x",
    "references/example-skill/SKILL.md": "example",
  });
  assert.deepEqual((await listResources(dir)).files, ["group/kept.md", "guide.md", "references/example-skill/SKILL.md"]);
});

test("a missing directory lists nothing", async () => {
  assert.deepEqual(await listResources(path.join(root, "missing")), { scripts: [], files: [], truncated: false });
});

test("resources never list a symlink that escapes the skill, nor a symlinked directory", async () => {
  const dir = writeSkill(root, "linky", "name: linky\ndescription: d");
  const outside = writeSkill(root, "linky-evil", "name: linky-evil\ndescription: d");
  put(outside, { "references/secret.md": "secret" });
  put(dir, { "references/own.md": "own", ".env": "TOKEN=x" });
  fs.symlinkSync(path.join(outside, "references", "secret.md"), path.join(dir, "references", "link.md"));
  fs.symlinkSync(path.join(dir, "references", "own.md"), path.join(dir, "references", "alias.md"));
  fs.symlinkSync(path.join(dir, ".env"), path.join(dir, "references", "env.md"));
  fs.symlinkSync(path.join(outside, "references"), path.join(dir, "assets"));
  fs.symlinkSync(path.join(dir, "references"), path.join(dir, "loop"));
  assert.deepEqual((await listResources(dir)).files, ["references/alias.md", "references/own.md"]);
});

test("a resource whose name holds a line break or a hidden character is not listed: it could forge entries", async () => {
  const dir = writeSkill(root, "odd-files", "name: odd-files\ndescription: d");
  for (const name of ["line\nbreak.md", "bidi\u202e.md", "esc\u001b[2J.md", "plain.md"]) put(dir, { [`references/${name}`]: "x" });
  assert.deepEqual((await listResources(dir)).files, ["references/plain.md"]);
});

test("a resource whose name holds a backslash is not listed: a read takes the backslash for a separator", async () => {
  const dir = writeSkill(root, "backslash", "name: backslash\ndescription: d");
  put(dir, { "references/back\\slash.md": "unreachable", "references/plain.md": "plain" });
  assert.deepEqual((await listResources(dir)).files, ["references/plain.md"]);
  const read = await readConfinedFile(dir, "references/back\\slash.md");
  assert.equal(read.ok, false, "the read refuses what the listing leaves out");
});

test("a small package's first listing is read in the turn it is asked in, with no trip through the thread pool", async () => {
  const dir = writeSkill(root, "small-first", "name: small-first\ndescription: d");
  put(dir, { "references/guide.md": "x", "scripts/run.sh": "x", "forms.md": "x" });
  const loop = countLoopTurns();
  const listing = await listResources(dir);
  const turns = loop.stop();
  assert.deepEqual(listing, { scripts: [path.join(dir, "scripts/run.sh")], files: ["forms.md", "references/guide.md"], truncated: false });
  assert.equal(turns, 0, "the walk never waited on the event loop");
});

/** Lists `dir` and counts the turns the event loop made meanwhile. */
async function listCountingTurns(dir: string): Promise<{ files: readonly string[]; turns: number }> {
  const loop = countLoopTurns();
  const listing = await listResources(dir);
  return { files: listing.files, turns: loop.stop() };
}

test("a directory of exactly one batch (128 entries) is still read in the turn; 129 are read off the loop", async () => {
  for (const [count, readInTurn] of [[128, true], [129, false]] as const) {
    const dir = writeSkill(root, `batch-${count}`, `name: batch-${count}\ndescription: d`);
    const files: Record<string, string> = {};
    // The skill directory holds SKILL.md and `references/`; `references/` holds `count` entries.
    for (let i = 0; i < count; i++) files[`references/r${String(i).padStart(3, "0")}.md`] = "x";
    put(dir, files);
    const { files: listed, turns } = await listCountingTurns(dir);
    assert.deepEqual(listed, Object.keys(files), `${count} entries listed whole`);
    assert.equal(turns === 0, readInTurn, `${count} entries: the loop turned ${turns} times`);
  }
});

test("the first 16 directories of a walk are read in the turn; a 17th is read off the loop", async () => {
  // The skill directory and `themes/` are two directories; `themes/` holds the rest.
  for (const [directories, readInTurn] of [[16, true], [17, false]] as const) {
    const dir = writeSkill(root, `dirs-${directories}`, `name: dirs-${directories}\ndescription: d`);
    const files: Record<string, string> = {};
    for (let i = 0; i < directories - 2; i++) files[`themes/t${String(i).padStart(2, "0")}/a.md`] = "x";
    put(dir, files);
    const { files: listed, turns } = await listCountingTurns(dir);
    assert.deepEqual(listed, Object.keys(files), `${directories} directories listed whole`);
    assert.equal(turns === 0, readInTurn, `${directories} directories: the loop turned ${turns} times`);
  }
});

test("a directory of more than one batch is listed whole, read off the event loop like a large package", async () => {
  const dir = writeSkill(root, "one-batch-more", "name: one-batch-more\ndescription: d");
  const files: Record<string, string> = {};
  // 129 entries in `references/`, one past a batch of 128.
  for (let i = 0; i < 129; i++) files[`references/r${String(i).padStart(3, "0")}.md`] = "x";
  put(dir, files);
  const loop = countLoopTurns();
  const listing = await listResources(dir);
  const turns = loop.stop();
  assert.deepEqual(listing.files, Object.keys(files));
  assert.ok(turns > 0, "the large directory was read through the thread pool");
});

test("another source's root inside the package is not listed, nor a link into it or into a nested skill", async () => {
  const dir = writeSkill(root, "holder", "name: holder\ndescription: d");
  put(dir, {
    "guide.md": "x",
    "private-root/roster.md": "x",
    "private-root/secret/SKILL.md": "---\nname: secret\ndescription: d\n---\n",
    "references/vendor-root/x.md": "x",
    "inner/SKILL.md": "---\nname: inner\ndescription: d\n---\n",
    "inner/notes.md": "x",
  });
  fs.symlinkSync(path.join(dir, "inner", "notes.md"), path.join(dir, "notes-link.md"));
  fs.symlinkSync(path.join(dir, "private-root", "roster.md"), path.join(dir, "roster-link.md"));
  const sourceRoots = [path.join(dir, "private-root"), path.join(dir, "references", "vendor-root")];
  assert.deepEqual((await listResources(dir, { sourceRoots })).files, ["guide.md"]);
  // Listed per roots: the same directory without them lists the root's files as its own.
  assert.deepEqual((await listResources(dir)).files, ["guide.md", "private-root/roster.md", "references/vendor-root/x.md", "roster-link.md"]);
});

test("a skill folder's listing kept from discovery is used once, only while keeping is on, and lists what a read would", async () => {
  const { keepDiscoveredListings, noteDiscoveredListing } = await import("../../src/package/discovered-listings.js");
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(root, "kept-")));
  put(dir, { "SKILL.md": "---\nname: kept\n---\n", "forms.md": "x", "references/a.md": "a", ".env": "secret" });
  const read = await listResources(dir);
  // A listing of another folder stands in for this one's, so its use shows in the answer.
  const other = fs.realpathSync(fs.mkdtempSync(path.join(root, "other-")));
  put(other, { "SKILL.md": "x", "only-there.md": "y" });
  const othersEntries = () => fs.readdirSync(other, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  noteDiscoveredListing(dir, othersEntries());
  assert.deepEqual(await listResources(dir), read, "not kept while keeping is off");

  keepDiscoveredListings(true);
  try {
    noteDiscoveredListing(dir, fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    assert.deepEqual(await listResources(dir), read, "discovery's own listing gives the listing a read gives");
    noteDiscoveredListing(dir, othersEntries());
    assert.deepEqual((await listResources(dir)).files, ["only-there.md"], "the kept listing is what is listed");
    assert.deepEqual(await listResources(dir), read, "and it is taken once");
  } finally {
    keepDiscoveredListings(false);
  }
  keepDiscoveredListings(true);
  keepDiscoveredListings(false);
  noteDiscoveredListing(dir, othersEntries());
  assert.deepEqual(await listResources(dir), read, "turning keeping off drops what was kept and keeps nothing more");
});

test("a kept listing of more than one batch (128 entries) is not used: the folder is read as always", async () => {
  const { keepDiscoveredListings, noteDiscoveredListing } = await import("../../src/package/discovered-listings.js");
  const sorted = (d: string) => fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const [count, used] of [
    [127, true],
    [128, false],
  ] as const) {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(root, `batch-${count}-`)));
    put(dir, { "SKILL.md": "x" });
    for (let i = 0; i < count; i++) fs.writeFileSync(path.join(dir, `f${String(i).padStart(3, "0")}.md`), "");
    const stand = fs.realpathSync(fs.mkdtempSync(path.join(root, `stand-${count}-`)));
    put(stand, { "SKILL.md": "x" });
    for (let i = 0; i < count; i++) fs.writeFileSync(path.join(stand, `g${String(i).padStart(3, "0")}.md`), "");
    // SKILL.md plus `count` files: 128 entries is one batch, 129 is past it.
    assert.equal(sorted(stand).length, count + 1);
    keepDiscoveredListings(true);
    try {
      noteDiscoveredListing(dir, sorted(stand));
      const listed = await listResources(dir);
      assert.equal(listed.files[0], used ? "g000.md" : "f000.md", `${count + 1} entries`);
    } finally {
      keepDiscoveredListings(false);
    }
  }
});

test("the listing made in the turn from discovery's listing is the asynchronous walk's; a link or a large folder leaves it to that walk, taking nothing", async () => {
  const { keepDiscoveredListings, noteDiscoveredListing } = await import("../../src/package/discovered-listings.js");
  const base = fs.realpathSync(fs.mkdtempSync(path.join(root, "now-")));
  const sorted = (d: string) => fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const deep = `${Array.from({ length: MAX_RESOURCE_DEPTH }, (_, i) => `d${i}`).join("/")}`;
  const shapes: Record<string, { files: Record<string, string>; roots?: string[]; made: boolean }> = {
    plain: { files: {}, made: true },
    shipped: { files: { "scripts/run.sh": "x", "references/a.md": "a", "references/more/b.md": "b", "assets/t.txt": "t", "forms.md": "f", ".env": "s", "node_modules/p/i.js": "x" }, made: true },
    nested: { files: { "guide.md": "g", "inner/SKILL.md": "---\nname: inner\n---\n", "inner/notes.md": "n", "references/SKILL.md": "just a file" }, made: true },
    "too-deep": { files: { [`${deep}/at-bound.md`]: "x", [`${deep}/d${MAX_RESOURCE_DEPTH}/past.md`]: "x" }, made: true },
    "odd-names": { files: { "line\nbreak.md": "x", "back\\slash.md": "x", "zero\u200bwidth.md": "x", "fine.md": "x" }, made: true },
    "other-root": { files: { "mine.md": "x", "vendor/x.md": "x" }, roots: ["vendor"], made: true },
    linked: { files: { "a.md": "a" }, made: false },
    wide: { files: Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`references/r${String(i).padStart(3, "0")}.md`, ""])), made: false },
  };
  for (const [name, shape] of Object.entries(shapes)) {
    const dir = path.join(base, name);
    put(dir, { "SKILL.md": `---\nname: ${name}\ndescription: d\n---\n`, ...shape.files });
    if (name === "linked") fs.symlinkSync(path.join(dir, "a.md"), path.join(dir, "b.md"));
    const sourceRoots = (shape.roots ?? []).map((r) => path.join(dir, r));
    const walked = await listResources(dir, { sourceRoots });
    assert.equal(listResourcesNow(dir, { sourceRoots }), undefined, `${name}: nothing is listed in the turn without discovery's listing`);
    keepDiscoveredListings(true);
    try {
      noteDiscoveredListing(dir, sorted(dir));
      const now = listResourcesNow(dir, { sourceRoots });
      if (shape.made) {
        assert.deepEqual(now, walked, `${name}: the same listing`);
        assert.equal(listResourcesNow(dir, { sourceRoots }), undefined, `${name}: discovery's listing is taken once`);
      } else {
        assert.equal(now, undefined, `${name}: left to the asynchronous walk`);
        // Nothing was taken: a stand-in listing noted for the folder is still what the walk lists.
        noteDiscoveredListing(dir, [...sorted(dir)].filter((entry) => entry.name !== "a.md"));
        assert.equal(listResourcesNow(dir, { sourceRoots }), undefined);
        const seeded = await listResources(dir, { sourceRoots });
        assert.equal(seeded.files.includes("a.md"), false, `${name}: the walk used the listing the refusal left`);
      }
    } finally {
      keepDiscoveredListings(false);
    }
  }
  assert.deepEqual((await listResources(path.join(base, "too-deep"))).truncated, true, "the bound is reached in this tree");
});

test("a file whose name is not UTF-8 is not listed (nothing could read it by the name a listing gives); one whose name holds U+FFFD itself is", async () => {
  const { keepDiscoveredListings, noteDiscoveredListing } = await import("../../src/package/discovered-listings.js");
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(root, "utf8-")));
  put(dir, { "SKILL.md": "x", "references/real\uFFFD.md": "x", "fine.md": "x" });
  for (const at of ["", "references/"]) fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/${at}bad`), Buffer.from([0xff]), Buffer.from(".md")]), "x");
  const expected = { scripts: [], files: ["fine.md", "references/real\uFFFD.md"], truncated: false };
  assert.deepEqual(await listResources(dir), expected);
  keepDiscoveredListings(true);
  try {
    noteDiscoveredListing(dir, fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    assert.deepEqual(listResourcesNow(dir), expected, "the same in the turn");
  } finally {
    keepDiscoveredListings(false);
  }
});
