import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { jsonOf, runCli, sandbox } from "./cli-process.js";
import { eventually } from "../support/eventually.js";
import { startHttpServer } from "../support/mcp-server.js";
import { writeSkill } from "../support/tmp.js";

function tree(): { cwd: string; env: Record<string, string>; skills: string; out: string } {
  const box = sandbox();
  const skills = path.join(box.cwd, "skills");
  writeSkill(skills, "alpha", "name: alpha\ndescription: First skill.");
  writeSkill(skills, "beta", "name: beta\ndescription: Second skill.");
  return { cwd: box.cwd, env: box.env, skills, out: path.join(box.cwd, "bundles") };
}

test("bundle prints the bundle directory on stdout, leaves an identical bundle already there unchanged (exit 0), refuses one that no longer matches its lock, and --verify checks it", async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  const made = await runCli(["bundle", "skills", "bundles"], opts);
  assert.equal(made.code, 0, made.stderr);
  const dir = made.stdout.trim();
  assert.match(path.basename(dir), /^sha256-[0-9a-f]{64}$/);
  assert.equal(path.dirname(dir), fs.realpathSync(t.out));
  assert.match(made.stderr, /^bundle sha256-[0-9a-f]{64}: 2 files, \d+ bytes$/m);

  const again = await runCli(["bundle", "skills", "bundles", "--json"], opts);
  assert.equal(again.code, 0, again.stderr);
  const unchanged = jsonOf<{ dir: string; unchanged: boolean }>(again);
  assert.deepEqual([unchanged.dir, unchanged.unchanged], [dir, true]);
  assert.deepEqual(fs.readdirSync(t.out), [path.basename(dir)], "no temporary directory is left behind");
  const againText = await runCli(["bundle", "skills", "bundles"], opts);
  assert.equal(againText.code, 0, againText.stderr);
  assert.equal(againText.stdout, `${dir}\n`);
  assert.match(againText.stderr, /^bundle sha256-[0-9a-f]{64} was already there, whole: 2 files, \d+ bytes; nothing written$/m);

  const verified = await runCli(["bundle", "--verify", dir], opts);
  assert.equal(verified.code, 0, verified.stdout);
  assert.equal(verified.stdout, `${path.basename(dir)}: 2 files match the lock\n`);
  fs.chmodSync(path.join(dir, "skills", "beta", "SKILL.md"), 0o600);
  const broken = await runCli(["bundle", "--verify", dir, "--json"], opts);
  assert.equal(broken.code, 1);
  assert.deepEqual(jsonOf<{ ok: boolean; problems: string[] }>(broken).problems, ["beta/SKILL.md has mode 0600, the lock says 0444"]);
  const overBroken = await runCli(["bundle", "skills", "bundles"], opts);
  assert.equal(overBroken.code, 1);
  assert.equal(overBroken.stdout, "");
  assert.match(overBroken.stderr, /^error: .*already exists and does not match its lock \(beta\/SKILL.md has mode 0600, the lock says 0444\); a bundle is never overwritten$/m);
});

test("bundle usage errors exit 2: no OUT, OUT inside DIR, DIR missing, --verify with OUT", async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  for (const args of [["bundle", "skills"], ["bundle", "skills", "skills/out"], ["bundle", "nowhere", "bundles"], ["bundle", "--verify", "skills", "bundles"]]) {
    const run = await runCli(args, opts);
    assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, /^error: /m);
  }
  assert.equal(fs.existsSync(path.join(t.skills, "out")), false);
});

test("bundle leaves out the agent sources the config declares (./skillport.config.json or --config), and refuses to bundle one", async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  writeSkill(path.join(t.skills, "private", "reviewer"), "secret-review", "name: secret-review\ndescription: Only the reviewer sees this.");
  const config = { sources: ["./skills", { path: "./skills/private/reviewer", origin: "agent", agentId: "reviewer" }] };
  fs.writeFileSync(path.join(t.cwd, "skillport.config.json"), JSON.stringify(config));

  const made = await runCli(["bundle", "skills", "bundles"], opts);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stderr, /^warning: not bundled: private\/reviewer: the private skills of agent 'reviewer' \(an agent source\): a bundle is served to every agent$/m);
  const listed = jsonOf<{ skills: Array<{ name: string }> }>(await runCli(["list", "--bundle", made.stdout.trim(), "--json"], opts));
  assert.deepEqual(listed.skills.map((s) => s.name), ["alpha", "beta"]);

  const refused = await runCli(["bundle", "skills/private/reviewer", "bundles"], opts);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /^error: DIR \(.*reviewer\) lies in the private skills of agent 'reviewer' \(an agent source\); a bundle is served to every agent, so it is not written$/m);

  // The same config named with --config from elsewhere.
  fs.renameSync(path.join(t.cwd, "skillport.config.json"), path.join(t.cwd, "team.json"));
  const elsewhere = { cwd: t.skills, env: t.env };
  const unguarded = await runCli(["bundle", ".", "../bundles-2"], elsewhere);
  assert.doesNotMatch(unguarded.stderr, /not bundled/, "no config here: nothing is known to be private");
  const named = await runCli(["bundle", ".", "../bundles-3", "--config", "../team.json"], elsewhere);
  assert.equal(named.code, 0, named.stderr);
  assert.match(named.stderr, /^warning: not bundled: private\/reviewer: /m);
});

test("bundle refuses a DIR in an agent source that a config found in the working directory declares outside the project", async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  fs.mkdirSync(path.join(t.cwd, ".git"));
  // Serving ignores such a source (an implicit config names only folders inside the project), but
  // the file still says whose skills those are, and leaving them out of a bundle grants nothing.
  const outside = fs.mkdtempSync(path.join(path.dirname(t.cwd), "private-"));
  writeSkill(path.join(outside, "secret-review"), "secret-review", "name: secret-review\ndescription: Only the reviewer sees this.");
  fs.writeFileSync(path.join(t.cwd, "skillport.config.json"), JSON.stringify({ sources: ["./skills", { path: outside, origin: "agent", agentId: "reviewer" }] }));
  const refused = await runCli(["bundle", outside, "bundles"], opts);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(refused.stderr, /^error: DIR \(.*\) lies in the private skills of agent 'reviewer' \(an agent source\); a bundle is served to every agent, so it is not written$/m);
  assert.equal(fs.existsSync(path.join(t.cwd, "bundles")), false);
});

test("--bundle serves a verified bundle, refuses a changed one (exit 1) and --root beside it (exit 2); doctor reports its digest", async () => {
  const t = tree();
  const opts = { cwd: t.cwd, env: t.env };
  const dir = (await runCli(["bundle", "skills", "bundles"], opts)).stdout.trim();
  const listed = await runCli(["list", "--bundle", dir, "--json"], opts);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(jsonOf<{ skills: Array<{ name: string }> }>(listed).skills.map((s) => s.name), ["alpha", "beta"]);
  const doctor = await runCli(["doctor", "--bundle", dir, "--json"], opts);
  assert.equal(jsonOf<{ registryDigest: string }>(doctor).registryDigest, path.basename(dir));
  const plain = await runCli(["doctor", "--root", "skills", "--json"], opts);
  assert.match(jsonOf<{ registryDigest: string }>(plain).registryDigest, /^loaded-sha256-[0-9a-f]{64}$/);

  assert.equal((await runCli(["list", "--bundle", dir, "--root", "skills"], opts)).code, 2);
  fs.chmodSync(path.join(dir, "skills", "alpha", "SKILL.md"), 0o644);
  fs.appendFileSync(path.join(dir, "skills", "alpha", "SKILL.md"), "changed\n");
  const refused = await runCli(["list", "--bundle", dir], opts);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /does not match its lock: alpha\/SKILL\.md has mode 0644, the lock says 0444; alpha\/SKILL\.md has changed/);
});

test("mcp --http --bundle names the bundle's digest at start and on every response", async () => {
  const t = tree();
  const dir = (await runCli(["bundle", "skills", "bundles"], { cwd: t.cwd, env: t.env })).stdout.trim();
  const server = await startHttpServer(["--bundle", dir, "--no-log"], { cwd: t.cwd, env: { ...process.env, ...t.env } as Record<string, string> });
  try {
    // The digest is computed after the server listens, so its line may follow the listening one.
    await eventually(() => /^registry digest /m.test(server.stderr()), "the registry digest line");
    assert.match(server.stderr(), new RegExp(`^registry digest ${path.basename(dir)}$`, "m"));
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
    const answered = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(initialize) });
    await answered.body?.cancel();
    assert.equal(answered.status, 200);
    assert.equal(answered.headers.get("skillport-registry-digest"), path.basename(dir));
    const refused = await fetch(server.url, { method: "GET" });
    await refused.body?.cancel();
    assert.notEqual(refused.status, 200);
    assert.equal(refused.headers.get("skillport-registry-digest"), path.basename(dir));
  } finally {
    await server.stop();
  }
});
