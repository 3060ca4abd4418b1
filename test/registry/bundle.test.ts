import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { BUNDLE_LOCK_FILE, parseLock } from "../../src/registry/bundle-lock.js";
import { verifyBundle } from "../../src/registry/bundle-verify.js";
import { BundleError, writeBundle } from "../../src/registry/bundle-write.js";
import { LOADED_DIGEST_PREFIX } from "../../src/registry/registry-digest.js";
import { BundleCheckError, createSkillRuntime } from "../../src/runtime.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

/** A small tree with what a real package holds, and what no bundle may carry. */
function skillTree(root: string, order: "forward" | "reverse" = "forward"): string {
  const steps: Array<() => void> = [
    () => writeSkill(root, "alpha", "name: alpha\ndescription: First skill.", "# Alpha\n"),
    () => {
      const dir = writeSkill(root, "beta", "name: beta\ndescription: Second skill.", "# Beta\n");
      fs.mkdirSync(path.join(dir, "scripts"), { recursive: true });
      fs.writeFileSync(path.join(dir, "scripts", "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
      fs.chmodSync(path.join(dir, "scripts", "run.sh"), 0o755);
      fs.mkdirSync(path.join(dir, "references"), { recursive: true });
      fs.writeFileSync(path.join(dir, "references", "guide.md"), "guide\n");
    },
    () => writeSkill(path.join(root, "tools"), "gamma", "name: gamma\ndescription: Nested in a category.", "# Gamma\n"),
  ];
  for (const step of order === "forward" ? steps : [...steps].reverse()) step();
  return root;
}

function addLeftOut(root: string): void {
  fs.writeFileSync(path.join(root, "alpha", ".env"), "SECRET=1\n");
  fs.mkdirSync(path.join(root, ".git"));
  fs.writeFileSync(path.join(root, ".git", "config"), "[core]\n");
  fs.mkdirSync(path.join(root, "beta", "node_modules", "x"), { recursive: true });
  fs.writeFileSync(path.join(root, "beta", "node_modules", "x", "index.js"), "\n");
}

function lockOf(bundleDir: string) {
  return parseLock(fs.readFileSync(path.join(bundleDir, BUNDLE_LOCK_FILE), "utf8"));
}

test("a bundle round-trips: the lock lists every package file with its digest and mode, read-only, and a runtime serves it", async () => {
  const source = skillTree(realTempDir("bundle-src"));
  addLeftOut(source);
  const out = path.join(realTempDir("bundle-out"), "bundles");
  const result = await writeBundle(source, out);

  assert.match(result.digest, /^sha256-[0-9a-f]{64}$/);
  assert.equal(result.dir, path.join(out, result.digest));
  assert.deepEqual(fs.readdirSync(out), [result.digest]);
  const lock = lockOf(result.dir);
  assert.deepEqual(
    lock.files.map((f) => [f.path, f.mode]),
    [
      ["alpha/SKILL.md", "0444"],
      ["beta/SKILL.md", "0444"],
      ["beta/references/guide.md", "0444"],
      ["beta/scripts/run.sh", "0555"],
      ["tools/gamma/SKILL.md", "0444"],
    ],
  );
  assert.equal(result.files, 5);
  for (const file of lock.files) {
    const stat = fs.statSync(path.join(result.dir, "skills", file.path));
    assert.equal((stat.mode & 0o7777).toString(8), file.mode.slice(1), file.path);
    assert.equal(fs.readFileSync(path.join(result.dir, "skills", file.path), "utf8"), fs.readFileSync(path.join(source, file.path), "utf8"));
  }
  assert.equal(fs.statSync(path.join(result.dir, BUNDLE_LOCK_FILE)).mode & 0o777, 0o444);

  const check = await verifyBundle(result.dir);
  assert.deepEqual(check.problems, []);
  assert.equal(check.digest, result.digest);

  const runtime = await createSkillRuntime({ bundle: result.dir, cwd: source, home: source });
  try {
    assert.deepEqual(runtime.registry().list().map((s) => s.name).sort(), ["alpha", "beta", "gamma"]);
    assert.equal(await runtime.registryDigest(), result.digest);
    const session = runtime.session();
    const loaded = await session.call({ name: "beta" });
    assert.equal(loaded.ok, true);
    const read = await session.call({ name: "alpha", file_path: ".env" });
    assert.equal(read.ok, false);
  } finally {
    await runtime.close();
  }
});

test("one skill directory is bundled under its own name", async () => {
  const source = writeSkill(realTempDir("bundle-one"), "solo", "name: solo\ndescription: Alone.");
  const result = await writeBundle(source, realTempDir("bundle-one-out"));
  assert.deepEqual(lockOf(result.dir).files.map((f) => f.path), ["solo/SKILL.md"]);
  const runtime = await createSkillRuntime({ bundle: result.dir, cwd: source, home: source });
  try {
    assert.deepEqual(runtime.registry().list().map((s) => s.name), ["solo"]);
    assert.deepEqual(runtime.diagnostics(), []);
  } finally {
    await runtime.close();
  }
});

test("the digest is the same across runs and whatever order the files were created in", async () => {
  const first = skillTree(realTempDir("bundle-order-a"), "forward");
  const second = skillTree(realTempDir("bundle-order-b"), "reverse");
  // Different times too: nothing but names, bytes and modes may reach the digest.
  fs.utimesSync(path.join(second, "alpha", "SKILL.md"), new Date(1_000_000), new Date(1_000_000));
  const a = await writeBundle(first, realTempDir("bundle-order-out-a"));
  const again = await writeBundle(first, realTempDir("bundle-order-out-a2"));
  const b = await writeBundle(second, realTempDir("bundle-order-out-b"));
  assert.equal(again.digest, a.digest);
  assert.equal(b.digest, a.digest);
  assert.equal(fs.readFileSync(path.join(b.dir, BUNDLE_LOCK_FILE), "utf8"), fs.readFileSync(path.join(a.dir, BUNDLE_LOCK_FILE), "utf8"));

  // One changed byte or one changed mode in the source is another bundle.
  fs.appendFileSync(path.join(second, "tools", "gamma", "SKILL.md"), "x");
  const changedByte = await writeBundle(second, realTempDir("bundle-order-out-c"));
  assert.notEqual(changedByte.digest, a.digest);
  fs.chmodSync(path.join(first, "alpha", "SKILL.md"), 0o744);
  const changedMode = await writeBundle(first, realTempDir("bundle-order-out-d"));
  assert.notEqual(changedMode.digest, a.digest);
});

test("verification finds a changed byte, a changed mode, an added file, a missing file and a renamed bundle", async () => {
  const source = skillTree(realTempDir("bundle-verify"));
  const out = realTempDir("bundle-verify-out");
  const fresh = async () => {
    const dir = path.join(out, (await writeBundle(source, out)).digest);
    return dir;
  };
  const dir = await fresh();
  const skill = path.join(dir, "skills", "alpha", "SKILL.md");

  fs.chmodSync(skill, 0o644);
  const content = fs.readFileSync(skill);
  content[content.length - 2] ^= 1;
  fs.writeFileSync(skill, content);
  fs.chmodSync(skill, 0o444);
  let check = await verifyBundle(dir);
  assert.equal(check.problems.length, 1, check.problems.join("\n"));
  assert.match(check.problems[0]!, /^alpha\/SKILL\.md has changed/);

  fs.writeFileSync(skill, fs.readFileSync(path.join(source, "alpha", "SKILL.md")));
  assert.deepEqual((await verifyBundle(dir)).problems, []);
  fs.chmodSync(skill, 0o644);
  check = await verifyBundle(dir);
  assert.deepEqual(check.problems, ["alpha/SKILL.md has mode 0644, the lock says 0444"]);
  fs.chmodSync(skill, 0o555);
  assert.deepEqual((await verifyBundle(dir)).problems, ["alpha/SKILL.md has mode 0555, the lock says 0444"]);
  fs.chmodSync(skill, 0o444);

  fs.writeFileSync(path.join(dir, "skills", "beta", ".env"), "X=1\n");
  assert.deepEqual((await verifyBundle(dir)).problems, ["beta/.env is not in the lock"]);
  fs.rmSync(path.join(dir, "skills", "beta", ".env"));
  fs.rmSync(path.join(dir, "skills", "beta", "references", "guide.md"));
  assert.deepEqual((await verifyBundle(dir)).problems, ["beta/references/guide.md is missing"]);

  fs.writeFileSync(path.join(dir, "skills", "beta", "references", "guide.md"), "guide\n", { mode: 0o444 });
  fs.chmodSync(path.join(dir, "skills", "beta", "references", "guide.md"), 0o444);
  assert.deepEqual((await verifyBundle(dir)).problems, []);
  const renamed = path.join(out, "current");
  fs.renameSync(dir, renamed);
  const moved = await verifyBundle(renamed);
  assert.equal(moved.problems.length, 1);
  assert.match(moved.problems[0]!, /named current, but its lock's digest is sha256-/);
  // A link to the bundle is the bundle: deploys switch a `current` link between digests.
  fs.renameSync(renamed, dir);
  fs.symlinkSync(dir, renamed);
  assert.deepEqual((await verifyBundle(renamed)).problems, []);
});

test("a runtime refuses a bundle that does not match its lock, and a bundle given with sources", async () => {
  const source = skillTree(realTempDir("bundle-refuse"));
  const { dir } = await writeBundle(source, realTempDir("bundle-refuse-out"));
  await assert.rejects(createSkillRuntime({ bundle: dir, sources: [{ path: source, origin: "global" }] }), TypeError);
  fs.chmodSync(path.join(dir, "skills", "alpha", "SKILL.md"), 0o644);
  await assert.rejects(createSkillRuntime({ bundle: dir, cwd: source, home: source }), (error: unknown) => {
    assert.ok(error instanceof BundleCheckError);
    assert.deepEqual(error.problems, ["alpha/SKILL.md has mode 0644, the lock says 0444"]);
    return true;
  });
});

test("an existing bundle is never overwritten, even by an empty directory's name, and nothing partial is left; an identical one is left as it is", async () => {
  const source = skillTree(realTempDir("bundle-exists"));
  const out = realTempDir("bundle-exists-out");
  const first = await writeBundle(source, out);
  assert.equal(first.unchanged, false);
  assert.deepEqual(await writeBundle(source, out), { ...first, unchanged: true });
  assert.deepEqual(fs.readdirSync(out), [first.digest]);
  assert.deepEqual((await verifyBundle(first.dir)).problems, []);

  // rename(2) would silently replace an empty directory; the refusal must not depend on content.
  const emptyOut = realTempDir("bundle-exists-empty");
  fs.mkdirSync(path.join(emptyOut, first.digest));
  await assert.rejects(writeBundle(source, emptyOut), /already exists/);
  assert.deepEqual(fs.readdirSync(emptyOut), [first.digest]);
  assert.deepEqual(fs.readdirSync(path.join(emptyOut, first.digest)), []);
});

test("a bundle that fails half-way leaves nothing in OUT", async () => {
  const source = skillTree(realTempDir("bundle-fail"));
  // Node cannot read a file over 2 GiB into one buffer; sparse, it costs no disk. Sorted last,
  // so the other files are already copied when it fails.
  const big = path.join(source, "zz-huge.bin");
  fs.closeSync(fs.openSync(big, "w"));
  fs.truncateSync(big, 2 ** 31 + 1);
  const out = realTempDir("bundle-fail-out");
  await assert.rejects(writeBundle(source, out), /2 GiB/);
  assert.deepEqual(fs.readdirSync(out), []);
});

test("OUT may sit beside DIR but not inside it: at DIR itself, one level below, and a sibling sharing its name's prefix", async () => {
  const parent = realTempDir("bundle-where");
  const source = skillTree(path.join(parent, "skills"));
  fs.mkdirSync(source, { recursive: true });
  for (const inside of [source, path.join(source, "out")]) {
    await assert.rejects(writeBundle(source, inside), (error: unknown) => error instanceof BundleError && error.kind === "usage" && /inside DIR/.test(error.message));
  }
  assert.equal(fs.existsSync(path.join(source, "out")), false);
  const sibling = await writeBundle(source, path.join(parent, "skills-out"));
  assert.deepEqual((await verifyBundle(sibling.dir)).problems, []);
  await assert.rejects(writeBundle(path.join(parent, "missing"), path.join(parent, "o")), (error: unknown) => error instanceof BundleError && error.kind === "usage");
});

test("links: followed while they stay inside DIR, skipped and reported when they lead out, loop or dangle", async () => {
  const parent = realTempDir("bundle-links");
  const source = skillTree(path.join(parent, "skills"));
  fs.writeFileSync(path.join(parent, "outside.md"), "secret\n");
  fs.symlinkSync(path.join(source, "beta", "references", "guide.md"), path.join(source, "alpha", "guide-link.md"));
  fs.symlinkSync(path.join(source, "tools"), path.join(source, "alpha", "tools-link"));
  fs.symlinkSync(path.join(parent, "outside.md"), path.join(source, "alpha", "outside.md"));
  fs.symlinkSync(source, path.join(source, "beta", "loop"));
  fs.symlinkSync(path.join(source, "nothing"), path.join(source, "beta", "dangling"));
  const result = await writeBundle(source, path.join(parent, "out"));
  const paths = lockOf(result.dir).files.map((f) => f.path);
  assert.ok(paths.includes("alpha/guide-link.md"));
  assert.ok(paths.includes("alpha/tools-link/gamma/SKILL.md"));
  assert.ok(!paths.some((p) => p.includes("outside") || p.startsWith("beta/loop") || p.includes("dangling")), paths.join("\n"));
  assert.deepEqual(result.skipped, [
    { path: "alpha/outside.md", reason: "a link leading out of DIR" },
    { path: "beta/dangling", reason: "a link to nothing" },
    { path: "beta/loop", reason: "a link back to a directory above it (a loop)" },
  ]);
  // What was followed is a copy: the bundle holds no link.
  assert.equal(fs.lstatSync(path.join(result.dir, "skills", "alpha", "guide-link.md")).isFile(), true);
});

test("a runtime without a bundle reports a digest of its loaded skills: stable, and changed by a SKILL.md edit", async () => {
  const first = skillTree(realTempDir("digest-a"), "forward");
  const second = skillTree(realTempDir("digest-b"), "reverse");
  const open = (root: string) => createSkillRuntime({ sources: [{ path: root, origin: "global" }], cwd: root, home: root });
  const a = await open(first);
  const b = await open(second);
  try {
    const digest = await a.registryDigest();
    assert.ok(digest.startsWith(LOADED_DIGEST_PREFIX), digest);
    assert.equal(await b.registryDigest(), digest);
    fs.appendFileSync(path.join(second, "alpha", "SKILL.md"), "more\n");
    await b.refresh();
    assert.notEqual(await b.registryDigest(), digest);
  } finally {
    await a.close();
    await b.close();
  }
});

test("an agent's private skills are never bundled: a private folder in DIR, or a link in DIR leading into one, is skipped and reported; a DIR inside one is refused", async () => {
  const root = realTempDir("bundle-private");
  const shared = path.join(root, "skills");
  writeSkill(shared, "open", "name: open\ndescription: Shared with every agent.");
  // The config's agent source lies inside the folder being bundled, and a shared skill links into it.
  const privateDir = path.join(shared, "agents", "reviewer");
  writeSkill(privateDir, "secret-review", "name: secret-review\ndescription: Only the reviewer sees this.");
  fs.symlinkSync(path.join(privateDir, "secret-review"), path.join(shared, "linked-secret"));
  // A folder whose name only begins like the private one is not in it.
  writeSkill(path.join(shared, "agents"), "reviewer-notes", "name: reviewer-notes\ndescription: Shared notes.");
  const privateRoots = [{ path: privateDir, owners: ["reviewer"] }];

  const result = await writeBundle(shared, path.join(root, "out"), { privateRoots });
  assert.deepEqual(
    lockOf(result.dir).files.map((f) => f.path),
    ["agents/reviewer-notes/SKILL.md", "open/SKILL.md"],
  );
  assert.deepEqual(result.skipped, [
    { path: "agents/reviewer", reason: "the private skills of agent 'reviewer' (an agent source): a bundle is served to every agent" },
    { path: "linked-secret", reason: "the private skills of agent 'reviewer' (an agent source): a bundle is served to every agent" },
  ]);
  // Without the private roots, the same tree carries them: the rule is what keeps them out.
  const unguarded = await writeBundle(shared, path.join(root, "out-unguarded"));
  assert.ok(lockOf(unguarded.dir).files.some((f) => f.path === "agents/reviewer/secret-review/SKILL.md"));

  for (const dir of [privateDir, path.join(privateDir, "secret-review")]) {
    await assert.rejects(writeBundle(dir, path.join(root, "out-refused"), { privateRoots }), (error: unknown) => {
      assert.ok(error instanceof BundleError);
      assert.equal(error.kind, "refused");
      assert.match(error.message, /lies in the private skills of agent 'reviewer' \(an agent source\); a bundle is served to every agent, so it is not written$/);
      return true;
    }, dir);
  }
  assert.equal(fs.existsSync(path.join(root, "out-refused")), false, "a refused bundle writes nothing");
});
