/**
 * The parse cache on disk, through the real CLI in child processes with XDG_CACHE_HOME in a temp
 * directory. A cached entry is made visible by changing its record in the file ("poisoning" it):
 * a run that serves the poisoned description used the entry, one that serves the file's own
 * description parsed the file. The cache refuses files changed within the last 2 s (ctime cannot
 * be set back), so the trees are written first and that window is waited out once.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createSkillRuntime } from "../../src/runtime.js";
import { packageVersion } from "../../src/package/skillport-version.js";
import { ABANDONED_TEMPORARY_MS, MAX_CACHE_FILES } from "../../src/registry/parse-cache.js";
import { homeEnv, runCli, type CliRun } from "../cli/cli-process.js";
import { realTempDir } from "../support/tmp.js";

const SETTLE_MS = 2_000;
const POISON = "Poisoned description from the cache file.";

/** One skill tree and its own cache directory. */
interface Case {
  root: string;
  home: string;
  xdg: string;
  /** The skill the tests poison and change. */
  file: string;
}

let base: string;
const cases = new Map<string, Case>();

function description(name: string): string {
  return `The ${name} skill does its one thing well.`;
}

function makeCase(label: string): Case {
  const dir = path.join(base, label);
  const root = path.join(dir, "skills");
  for (const name of ["alpha", "beta", "gamma"]) {
    fs.mkdirSync(path.join(root, name), { recursive: true });
    fs.writeFileSync(path.join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description(name)}\nmetadata:\n  team: core\n---\n\n# ${name}\n`);
  }
  const home = path.join(dir, "home");
  fs.mkdirSync(home);
  const c: Case = { root, home, xdg: path.join(dir, "xdg"), file: path.join(root, "alpha", "SKILL.md") };
  cases.set(label, c);
  return c;
}

function caseOf(label: string): Case {
  return cases.get(label)!;
}

function list(c: Case, extraArgs: string[] = [], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  return runCli(["list", "--json", "--root", c.root, ...extraArgs], { cwd: path.dirname(c.root), env: { ...homeEnv(c.home), XDG_CACHE_HOME: c.xdg, ...extraEnv } });
}

function descriptions(run: CliRun): Record<string, string> {
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { skills: Array<{ name: string; description: string }> };
  return Object.fromEntries(out.skills.map((s) => [s.name, s.description]));
}

function cacheDir(c: Case): string {
  return path.join(c.xdg, "skillport");
}

function cacheFile(c: Case): string {
  const files = fs.readdirSync(cacheDir(c)).filter((name) => name.endsWith(".json"));
  assert.equal(files.length, 1, `one cache file, found ${files.join(", ")}`);
  return path.join(cacheDir(c), files[0]!);
}

type Entry = [string, string, string, string, string, { description: string }];
interface CacheText {
  format: number;
  version: string;
  build: string;
  entries: Record<string, Entry>;
}

function readCache(c: Case): CacheText {
  return JSON.parse(fs.readFileSync(cacheFile(c), "utf8")) as CacheText;
}

function writeCache(c: Case, cache: CacheText): void {
  const file = cacheFile(c);
  fs.writeFileSync(file, JSON.stringify(cache));
  fs.chmodSync(file, 0o600);
}

/** A cold run that caches the tree, then the alpha entry's description poisoned. */
async function warmAndPoison(c: Case): Promise<CacheText> {
  assert.equal(descriptions(await list(c)).alpha, description("alpha"));
  const cache = readCache(c);
  assert.ok(cache.entries[c.file], "the cold run cached alpha");
  cache.entries[c.file]![5].description = POISON;
  writeCache(c, cache);
  return cache;
}

/** Whether this filesystem keeps permission bits (some mounts ignore chmod). */
function modesKept(dir: string): boolean {
  const probe = path.join(dir, "mode-probe");
  fs.writeFileSync(probe, "");
  fs.chmodSync(probe, 0o640);
  const kept = (fs.statSync(probe).mode & 0o777) === 0o640;
  fs.rmSync(probe);
  return kept;
}

const LABELS = [
  "identical",
  "poison",
  "same-size",
  "touch",
  "chmod",
  "replace",
  "field-0",
  "field-1",
  "field-2",
  "field-3",
  "field-4",
  "version",
  "build",
  "corrupt",
  "truncated",
  "bad-diagnostics",
  "modes",
  "group-writable",
  "open-directory",
  "symlink",
  "foreign",
  "foreign-home",
  "off-env",
  "off-flag",
  "library",
  "future-mtime",
  "not-json",
  "abandoned",
  "bounded",
];

describe("parse cache", { timeout: 600_000 }, () => {
  before(async () => {
    base = realTempDir("skillport-parse-cache");
    for (const label of LABELS) makeCase(label);
    const odd = path.join(caseOf("not-json").root, "delta");
    fs.mkdirSync(odd);
    fs.writeFileSync(path.join(odd, "SKILL.md"), "---\nname: delta\ndescription: Numbers JSON cannot write.\nmetadata:\n  ratio: .inf\n  offset: -0.0\n---\n\n# delta\n");
    // Every tree settles at once: the cache only keeps files whose ctime is 2 s old.
    await delay(SETTLE_MS + 200);
  });

  test("a warm run lists byte for byte what a cold run and a run without the cache list", { timeout: 120_000 }, async () => {
    const c = caseOf("identical");
    const cold = await list(c);
    assert.equal(cold.code, 0, cold.stderr);
    assert.equal(Object.keys(readCache(c).entries).length, 3);
    const warm = await list(c);
    const off = await list(c, ["--no-parse-cache"]);
    assert.equal(warm.stdout, cold.stdout);
    assert.equal(off.stdout, cold.stdout);
    assert.equal(warm.stderr, cold.stderr);
  });

  test("an entry whose every stamp matches is served from the cache", { timeout: 120_000 }, async () => {
    const c = caseOf("poison");
    await warmAndPoison(c);
    const served = descriptions(await list(c));
    assert.equal(served.alpha, POISON);
    assert.equal(served.beta, description("beta"));
  });

  test("content changed at the same size is parsed again", { timeout: 120_000 }, async () => {
    const c = caseOf("same-size");
    await warmAndPoison(c);
    const text = fs.readFileSync(c.file, "utf8");
    const changed = text.replace("one thing well", "one task well.");
    assert.equal(Buffer.byteLength(changed), Buffer.byteLength(text));
    fs.writeFileSync(c.file, changed);
    assert.equal(descriptions(await list(c)).alpha, "The alpha skill does its one task well..");
  });

  test("a new mtime (touch) makes the file parsed again", { timeout: 120_000 }, async () => {
    const c = caseOf("touch");
    await warmAndPoison(c);
    const old = fs.statSync(c.file);
    fs.utimesSync(c.file, old.atime, new Date(old.mtimeMs - 60_000));
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
  });

  test("a metadata change (chmod, a new ctime) makes the file parsed again", { timeout: 120_000 }, async () => {
    const c = caseOf("chmod");
    await warmAndPoison(c);
    fs.chmodSync(c.file, 0o600);
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
  });

  test("a file replaced by another (a new inode) is parsed again", { timeout: 120_000 }, async () => {
    const c = caseOf("replace");
    await warmAndPoison(c);
    const next = `${c.file}.next`;
    fs.copyFileSync(c.file, next);
    fs.renameSync(next, c.file);
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
  });

  // Each stamp on its own: the real file keeps its stamps and the cached one differs in one field.
  for (const [index, field] of ["size", "mtime", "ctime", "inode", "device"].entries()) {
    test(`an entry whose ${field} differs from the file's is not used`, { timeout: 120_000 }, async () => {
      const c = caseOf(`field-${index}`);
      const cache = await warmAndPoison(c);
      const entry = cache.entries[c.file]!;
      entry[index] = String(BigInt(entry[index] as string) + 1n);
      writeCache(c, cache);
      assert.equal(descriptions(await list(c)).alpha, description("alpha"));
      // Parsed again and stored again, with the file's own stamps.
      assert.equal(readCache(c).entries[c.file]![5].description, description("alpha"));
    });
  }

  test("a file written by another skillport version is ignored and rewritten", { timeout: 120_000 }, async () => {
    const c = caseOf("version");
    const cache = await warmAndPoison(c);
    writeCache(c, { ...cache, version: "0.0.0-other" });
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
    assert.equal(readCache(c).version, packageVersion());
  });

  test("a write removes the temporaries abandoned by killed writers, of any source's file, and nothing else", { timeout: 120_000 }, async () => {
    const c = caseOf("abandoned");
    assert.equal((await list(c)).code, 0);
    const file = cacheFile(c);
    const temporary = (tag: string) => path.join(cacheDir(c), `.${path.basename(file)}.4242.${tag}.tmp`);
    const aged = (target: string, ageMs: number) => {
      fs.writeFileSync(target, "{");
      const at = new Date(Date.now() - ageMs);
      fs.utimesSync(target, at, at);
    };
    // Past the bound and just inside it (a margin for the time the run takes to reach its write).
    aged(temporary("past"), ABANDONED_TEMPORARY_MS + 30_000);
    aged(temporary("inside"), ABANDONED_TEMPORARY_MS - 30_000);
    // Another source's, abandoned; and old names this module never writes.
    aged(path.join(cacheDir(c), `.${"0".repeat(32)}.json.4242.x.tmp`), ABANDONED_TEMPORARY_MS * 3);
    aged(path.join(cacheDir(c), `.${"0".repeat(31)}.json.4242.x.tmp`), ABANDONED_TEMPORARY_MS * 3);
    aged(path.join(cacheDir(c), "notes.tmp"), ABANDONED_TEMPORARY_MS * 3);
    // A skill removed: the cache file is written again.
    fs.rmSync(path.join(c.root, "beta"), { recursive: true });
    assert.equal((await list(c)).code, 0);
    assert.equal(Object.keys(readCache(c).entries).length, 2, "the cache was written again");
    const left = fs.readdirSync(cacheDir(c)).sort();
    assert.deepEqual(left, [`.${"0".repeat(31)}.json.4242.x.tmp`, `.${path.basename(file)}.4242.inside.tmp`, path.basename(file), "notes.tmp"].sort());
  });

  test(`a write keeps the cache directory at ${MAX_CACHE_FILES} files, removing the least recently written`, { timeout: 120_000 }, async () => {
    const c = caseOf("bounded");
    assert.equal((await list(c)).code, 0);
    const file = cacheFile(c);
    // Files of sources long gone, each older than the one before: name i was written i minutes ago.
    const stale = (i: number) => path.join(cacheDir(c), `${i.toString(16).padStart(32, "0")}.json`);
    const plant = (count: number) => {
      for (let i = 1; i <= count; i++) {
        fs.writeFileSync(stale(i), "{}", { mode: 0o600 });
        const at = new Date(Date.now() - i * 60_000);
        fs.utimesSync(stale(i), at, at);
      }
    };
    const rewrite = async (gone: string) => {
      fs.rmSync(path.join(c.root, gone), { recursive: true });
      assert.equal((await list(c)).code, 0);
    };
    const cacheFiles = () => fs.readdirSync(cacheDir(c)).filter((name) => name.endsWith(".json"));
    // Exactly at the bound with this source's own file: nothing goes.
    plant(MAX_CACHE_FILES - 1);
    await rewrite("beta");
    assert.equal(cacheFiles().length, MAX_CACHE_FILES);
    // One past it: the least recently written goes, and only it.
    plant(MAX_CACHE_FILES);
    await rewrite("gamma");
    assert.equal(cacheFiles().length, MAX_CACHE_FILES);
    assert.equal(fs.existsSync(stale(MAX_CACHE_FILES)), false, "the oldest is removed");
    assert.equal(fs.existsSync(stale(MAX_CACHE_FILES - 1)), true);
    assert.ok(fs.existsSync(file), "the file just written stays");
  });

  test("a file written by another build of the parser is ignored and rewritten", { timeout: 120_000 }, async () => {
    const c = caseOf("build");
    const cache = await warmAndPoison(c);
    const build = cache.build;
    writeCache(c, { ...cache, build: "0".repeat(64) });
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
    assert.equal(readCache(c).build, build);
  });

  for (const [label, spoil] of [
    ["corrupt", (text: string) => `{"format":1,${text.slice(1, 40)}\u0000garbage`],
    ["truncated", (text: string) => text.slice(0, Math.floor(text.length / 2))],
  ] as const) {
    test(`a ${label} cache file is ignored and rewritten`, { timeout: 120_000 }, async () => {
      const c = caseOf(label);
      const reference = await list(c);
      const file = cacheFile(c);
      fs.writeFileSync(file, spoil(fs.readFileSync(file, "utf8")));
      const run = await list(c);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, reference.stdout);
      assert.equal(run.stderr, reference.stderr);
      assert.equal(Object.keys(readCache(c).entries).length, 3);
    });
  }

  test("an entry whose diagnostics are not diagnostics is dropped and parsed again, not trusted", { timeout: 120_000 }, async () => {
    const c = caseOf("bad-diagnostics");
    const reference = await list(c);
    assert.equal(reference.code, 0, reference.stderr);
    for (const diagnostics of [[null], ["x"], [{ severity: "error" }], [{ path: c.file, severity: "error", code: 7, message: "m" }]]) {
      const cache = readCache(c);
      (cache.entries[c.file]![5] as { diagnostics?: unknown }).diagnostics = diagnostics;
      writeCache(c, cache);
      const run = await list(c);
      assert.deepEqual([run.code, run.stdout, run.stderr], [reference.code, reference.stdout, reference.stderr], JSON.stringify(diagnostics));
    }
  });

  test("the cache directory is created 0700 and its file 0600", { timeout: 120_000 }, async (t) => {
    const c = caseOf("modes");
    if (!modesKept(path.dirname(c.root))) {
      t.skip("this filesystem does not keep permission bits");
      return;
    }
    assert.equal((await list(c)).code, 0);
    assert.equal(fs.statSync(c.xdg).mode & 0o777, 0o700);
    assert.equal(fs.statSync(cacheDir(c)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(cacheFile(c)).mode & 0o777, 0o600);
  });

  test("a group-writable cache file is ignored and rewritten private", { timeout: 120_000 }, async () => {
    const c = caseOf("group-writable");
    await warmAndPoison(c);
    fs.chmodSync(cacheFile(c), 0o620);
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
    assert.equal(fs.statSync(cacheFile(c)).mode & 0o777, 0o600);
    assert.equal(readCache(c).entries[c.file]![5].description, description("alpha"));
  });

  test("a cache directory others may write to is neither read nor written", { timeout: 120_000 }, async () => {
    const c = caseOf("open-directory");
    await warmAndPoison(c);
    fs.chmodSync(cacheDir(c), 0o777);
    const before = fs.readFileSync(cacheFile(c), "utf8");
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
    assert.equal(fs.readFileSync(cacheFile(c), "utf8"), before);
  });

  test("a cache file that is a symlink is not followed, and is replaced by a file", { timeout: 120_000 }, async () => {
    const c = caseOf("symlink");
    await warmAndPoison(c);
    const file = cacheFile(c);
    const elsewhere = path.join(path.dirname(c.root), "elsewhere.json");
    fs.renameSync(file, elsewhere);
    fs.symlinkSync(elsewhere, file);
    const planted = fs.readFileSync(elsewhere, "utf8");
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
    assert.ok(fs.lstatSync(file).isFile(), "the link is replaced by the cache file");
    assert.equal(fs.readFileSync(elsewhere, "utf8"), planted, "the link's target is left alone");
  });

  test("a cache file owned by another user is ignored", { timeout: 120_000 }, async (t) => {
    if (typeof process.getuid !== "function" || process.getuid() !== 0) {
      t.skip("only root can give a file to another user");
      return;
    }
    const c = caseOf("foreign");
    await warmAndPoison(c);
    fs.chownSync(cacheFile(c), 65534, 65534);
    assert.equal(descriptions(await list(c)).alpha, description("alpha"));
    assert.equal(fs.statSync(cacheFile(c)).uid, 0, "rewritten as this user's");
  });

  test("missing cache folders are made only inside a folder this user owns, or a sticky one: root run with another user's HOME leaves it alone", { timeout: 120_000 }, async (t) => {
    if (typeof process.getuid !== "function" || process.getuid() !== 0) {
      t.skip("only root can run with a home another user owns");
      return;
    }
    const c = caseOf("foreign-home");
    fs.chownSync(c.home, 65534, 65534);
    // No XDG_CACHE_HOME: the cache would go in the home's .cache, as `sudo -E skillport list` does.
    const noXdg = { XDG_CACHE_HOME: "" };
    assert.deepEqual(descriptions(await list(c, [], noXdg)), { alpha: description("alpha"), beta: description("beta"), gamma: description("gamma") });
    assert.equal(fs.existsSync(path.join(c.home, ".cache")), false, "no folder of root's in another user's home");
    // A shared folder with the sticky bit (as /tmp): nobody else can take a folder made there.
    fs.chmodSync(c.home, 0o1777);
    assert.equal((await list(c, [], noXdg)).code, 0);
    assert.equal(fs.statSync(path.join(c.home, ".cache", "skillport")).mode & 0o777, 0o700);
  });

  test("SKILLPORT_PARSE_CACHE=0 and --no-parse-cache leave no cache behind", { timeout: 120_000 }, async () => {
    const env = caseOf("off-env");
    assert.equal((await list(env, [], { SKILLPORT_PARSE_CACHE: "0" })).code, 0);
    assert.equal(fs.existsSync(env.xdg), false);
    const flag = caseOf("off-flag");
    assert.equal((await list(flag, ["--no-parse-cache"])).code, 0);
    assert.equal(fs.existsSync(flag.xdg), false);
  });

  test("a file whose mtime lies ahead of the last 2 s is not cached", { timeout: 120_000 }, async () => {
    const c = caseOf("future-mtime");
    const future = new Date(Date.now() + 3_600_000);
    fs.utimesSync(c.file, future, future);
    assert.equal((await list(c)).code, 0);
    assert.deepEqual(Object.keys(readCache(c).entries).sort(), [path.join(c.root, "beta", "SKILL.md"), path.join(c.root, "gamma", "SKILL.md")]);
  });

  test("a file changed within the last 2 s is not cached, so a rewrite in the same clock tick cannot be missed", { timeout: 120_000 }, async (t) => {
    const c = makeCase("fresh");
    const dir = path.join(c.xdg, "skillport");
    // Modification times set an hour back: only the ctime (which that sets to now) is fresh.
    const past = new Date(Date.now() - 3_600_000);
    for (const name of ["alpha", "beta", "gamma"]) fs.utimesSync(path.join(c.root, name, "SKILL.md"), past, past);
    // In this process, so the load follows the write by milliseconds rather than a process start.
    const written = Date.now();
    const runtime = await createSkillRuntime({ sources: [{ path: c.root, origin: "global" }], parseCache: { dir } });
    await runtime.close();
    if (Date.now() - written > SETTLE_MS / 2) {
      t.skip("the machine took too long to load three skills for them to count as just written");
      return;
    }
    assert.equal(runtime.stats().reads, 3);
    assert.equal(fs.existsSync(dir) && fs.readdirSync(dir).some((name) => name.endsWith(".json")), false, "nothing was worth writing");
  });

  test("the library keeps a cache only when asked, in the directory it names", { timeout: 120_000 }, async () => {
    const c = caseOf("library");
    const dir = path.join(c.xdg, "library-cache");
    // Off unless asked, even with a cache directory named in the environment.
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = c.xdg;
    try {
      const plain = await createSkillRuntime({ sources: [{ path: c.root, origin: "global" }] });
      await plain.close();
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
    assert.equal(fs.existsSync(c.xdg), false);
    const cold = await createSkillRuntime({ sources: [{ path: c.root, origin: "global" }], parseCache: { dir } });
    await cold.close();
    assert.equal(cold.stats().reads, 3);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    const warm = await createSkillRuntime({ sources: [{ path: c.root, origin: "global" }], parseCache: { dir } });
    await warm.close();
    assert.equal(warm.stats().reads, 0, "every skill came from the cache");
    assert.deepEqual(warm.snapshot().skills, cold.snapshot().skills);
    await assert.rejects(createSkillRuntime({ sources: [], parseCache: { dir: 5 } as never }), TypeError);
  });

  test("a record JSON would change (metadata .inf, -0) is not cached, and loads the same each time", { timeout: 120_000 }, async () => {
    const c = caseOf("not-json");
    const dir = path.join(c.xdg, "skillport");
    const sources = [{ path: c.root, origin: "global" as const }];
    const cold = await createSkillRuntime({ sources, parseCache: { dir } });
    await cold.close();
    const warm = await createSkillRuntime({ sources, parseCache: { dir } });
    await warm.close();
    const metadataOf = (runtime: typeof cold) => runtime.snapshot().skills.find((s) => s.name === "delta")!.manifest.metadata;
    assert.equal(metadataOf(cold).ratio, Number.POSITIVE_INFINITY);
    assert.ok(Object.is(metadataOf(cold).offset, -0));
    assert.equal(metadataOf(warm).ratio, Number.POSITIVE_INFINITY);
    assert.ok(Object.is(metadataOf(warm).offset, -0));
    assert.equal(warm.stats().reads, 1, "only delta was parsed again");
  });
});
