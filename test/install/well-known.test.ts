/**
 * Installing from a well-known site (SPEC §10.1) served by a real HTTP server on loopback: both
 * entry types, the legacy path, digests checked before any byte is used, archives refused for
 * `..` and links, a bad `$schema`, bounded bodies, the lockfile's record, `update` re-reading
 * the index, `--skill`, `--list` and `--frozen`.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { folderTarget, installLockedSkills, installSkills, InstallError, listSourceSkills, readSkillsLock, updateSkills, verifySkills } from "../../src/index.js";
import { DISCOVERY_SCHEMA, MAX_INDEX_BYTES } from "../../src/install/well-known.js";
import { tarGz, zip } from "../support/archives.js";
import { serveSite, type SiteServer } from "../support/site-server.js";
import { tempDir } from "../support/tmp.js";

const sha = (bytes: Buffer | string): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const skillText = (name: string, body = "Do the thing.\n"): string => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}`;

interface Artifact {
  name: string;
  type: "skill-md" | "archive";
  file: string;
  bytes: Buffer;
  /** The digest the index states; the artifact's own by default. */
  digest?: string;
}

/** Writes a 0.2.0 site under `root`: the artifacts and their index. */
function writeSite(root: string, artifacts: readonly Artifact[], wellKnown = ".well-known/agent-skills"): void {
  const base = path.join(root, ...wellKnown.split("/"));
  fs.rmSync(base, { recursive: true, force: true });
  fs.mkdirSync(base, { recursive: true });
  for (const a of artifacts) {
    fs.mkdirSync(path.dirname(path.join(base, a.file)), { recursive: true });
    fs.writeFileSync(path.join(base, a.file), a.bytes);
  }
  const index = { $schema: DISCOVERY_SCHEMA, skills: artifacts.map((a) => ({ name: a.name, type: a.type, description: `The ${a.name} skill.`, url: a.file, digest: a.digest ?? sha(a.bytes) })) };
  fs.writeFileSync(path.join(base, "index.json"), JSON.stringify(index));
}

const lone = (name: string, body?: string): Artifact => ({ name, type: "skill-md", file: `${name}/SKILL.md`, bytes: Buffer.from(skillText(name, body)) });
const packed = (name: string, extra: Record<string, string> = {}): Artifact => ({
  name,
  type: "archive",
  file: `${name}.tar.gz`,
  bytes: tarGz([{ path: "SKILL.md", body: skillText(name) }, ...Object.entries(extra).map(([p, body]) => ({ path: p, body }))]),
});

async function site(artifacts: readonly Artifact[]): Promise<{ root: string; server: SiteServer; target: ReturnType<typeof folderTarget> }> {
  const base = tempDir("skillport-site-");
  const root = path.join(base, "site");
  writeSite(root, artifacts);
  const server = await serveSite(root);
  return { root, server, target: folderTarget(path.join(base, "project", ".agents", "skills"), path.join(base, "project", "skills-lock.json")) };
}

test("a site's skill-md and archive entries install whole and are recorded as well-known with the artifact's digest", { timeout: 60_000 }, async () => {
  const zipped: Artifact = { name: "zipped", type: "archive", file: "zipped.zip", bytes: zip([{ path: "SKILL.md", body: skillText("zipped"), deflate: true }, { path: "refs/a.md", body: "A" }]) };
  const { server, target } = await site([lone("alpha"), packed("beta", { "scripts/run.sh": "echo hi\n" }), zipped]);
  const report = await installSkills(server.url, { target });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["alpha", "installed"], ["beta", "installed"], ["zipped", "installed"]]);
  assert.equal(fs.readFileSync(path.join(target.dir, "beta", "scripts", "run.sh"), "utf8"), "echo hi\n");
  assert.equal(fs.readFileSync(path.join(target.dir, "zipped", "refs", "a.md"), "utf8"), "A");
  const locked = readSkillsLock(target.lockfile).get(".agents/skills")!;
  const beta = locked.get("beta")!;
  assert.equal(beta.sourceType, "well-known");
  assert.equal(beta.url, server.url);
  assert.equal(beta.commit, null);
  assert.equal(beta.path, "beta");
  assert.equal(beta.wellKnownDigest, sha(packed("beta", { "scripts/run.sh": "echo hi\n" }).bytes));
  assert.equal(locked.get("alpha")!.wellKnownDigest, sha(skillText("alpha")));
  assert.deepEqual((await verifySkills({ target })).skills.map((s) => s.status), ["ok", "ok", "ok"]);
});

test("an artifact that does not match its digest is refused by name and nothing of it is written; the others go in", { timeout: 60_000 }, async () => {
  const wrong = { ...packed("tampered"), digest: sha("something else") };
  const { server, target } = await site([lone("alpha"), wrong]);
  const report = await installSkills(server.url, { target });
  const tampered = report.skills.find((s) => s.name === "tampered")!;
  assert.equal(tampered.status, "refused");
  assert.match(tampered.messages.join("\n"), /does not match its digest in the index .*nothing of it was used/);
  assert.equal(report.skills.find((s) => s.name === "alpha")!.status, "installed");
  assert.equal(fs.existsSync(path.join(target.dir, "tampered")), false);
  assert.equal(readSkillsLock(target.lockfile).get(".agents/skills")!.has("tampered"), false);
});

test("an archive holding .. or a link is refused with the reason, and nothing lands outside or inside the install folder", { timeout: 60_000 }, async () => {
  const escape: Artifact = { name: "escape", type: "archive", file: "escape.tar.gz", bytes: tarGz([{ path: "SKILL.md", body: skillText("escape") }, { path: "../../outside.md", body: "x" }]) };
  const linked: Artifact = { name: "linked", type: "archive", file: "linked.tar.gz", bytes: tarGz([{ path: "SKILL.md", body: skillText("linked") }, { path: "passwd", type: "SymbolicLink", linkpath: "/etc/passwd" }]) };
  const { server, target, root } = await site([escape, linked]);
  const report = await installSkills(server.url, { target });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["escape", "refused"], ["linked", "refused"]]);
  assert.match(report.skills[0]!.messages.join("\n"), /leads outside the archive/);
  assert.match(report.skills[1]!.messages.join("\n"), /symbolic link/);
  assert.equal(fs.existsSync(target.dir) ? fs.readdirSync(target.dir).length : 0, 0);
  assert.equal(fs.existsSync(path.join(path.dirname(root), "outside.md")), false);
});

test("the legacy /.well-known/skills/index.json is read when the 0.2.0 path is absent, files fetched one by one", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-site-");
  const root = path.join(base, "site");
  const legacy = path.join(root, ".well-known", "skills");
  fs.mkdirSync(path.join(legacy, "old", "refs"), { recursive: true });
  fs.writeFileSync(path.join(legacy, "old", "SKILL.md"), skillText("old"));
  fs.writeFileSync(path.join(legacy, "old", "refs", "notes.md"), "notes");
  fs.writeFileSync(path.join(legacy, "index.json"), JSON.stringify({ skills: [{ name: "old", description: "The old skill.", files: ["SKILL.md", "refs/notes.md"] }] }));
  const server = await serveSite(root);
  const target = folderTarget(path.join(base, "project", "skills"));
  const progress: string[] = [];
  const report = await installSkills(server.url, { target, onProgress: (line) => progress.push(line) });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["old", "installed"]]);
  assert.equal(fs.readFileSync(path.join(target.dir, "old", "refs", "notes.md"), "utf8"), "notes");
  assert.ok(server.requests.includes("/.well-known/agent-skills/index.json"), "the 0.2.0 path is tried first");
  assert.ok(progress.some((line) => /legacy index gives no digests/.test(line)));
  assert.equal(readSkillsLock(target.lockfile).get("skills")!.get("old")!.wellKnownDigest, undefined);
});

test("a legacy entry listing a file twice, or a file where a folder must be, is refused by name; the others go in", { timeout: 60_000 }, async () => {
  const base = tempDir("skillport-site-");
  const root = path.join(base, "site");
  const legacy = path.join(root, ".well-known", "skills");
  for (const name of ["good", "twice", "clash"]) {
    fs.mkdirSync(path.join(legacy, name), { recursive: true });
    fs.writeFileSync(path.join(legacy, name, "SKILL.md"), skillText(name));
  }
  const entries = [
    { name: "clash", description: "x", files: ["SKILL.md", "SKILL.md/inner.md"] },
    { name: "good", description: "x", files: ["SKILL.md"] },
    { name: "twice", description: "x", files: ["SKILL.md", "./SKILL.md"] },
  ];
  fs.writeFileSync(path.join(legacy, "index.json"), JSON.stringify({ skills: entries }));
  const server = await serveSite(root);
  server.answer("/.well-known/skills/clash/SKILL.md/inner.md", { body: "inner" });
  const report = await installSkills(server.url, { target: folderTarget(path.join(base, "project", "skills")) });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]).sort(), [["clash", "refused"], ["good", "installed"], ["twice", "refused"]]);
  assert.match(report.skills.find((s) => s.name === "twice")!.messages[0]!, /lists a file twice/);
  assert.match(report.skills.find((s) => s.name === "clash")!.messages[0]!, /cannot be written as the site names them \((EEXIST|ENOTDIR)\)/);
});

test("an index with a $schema this reader does not know is refused, never guessed at", { timeout: 60_000 }, async () => {
  const { server, target, root } = await site([lone("alpha")]);
  const indexFile = path.join(root, ".well-known", "agent-skills", "index.json");
  const index = JSON.parse(fs.readFileSync(indexFile, "utf8")) as Record<string, unknown>;
  fs.writeFileSync(indexFile, JSON.stringify({ ...index, $schema: "https://schemas.agentskills.io/discovery/9.0.0/schema.json" }));
  await assert.rejects(installSkills(server.url, { target }), (error: unknown) => error instanceof InstallError && /declares \$schema .*9\.0\.0.*reads discovery schema 0\.2\.0/.test(error.message));
  assert.equal(fs.existsSync(target.lockfile), false);
});

test("a site with no index at either path says so; an index entry that breaks the schema is refused by name", { timeout: 60_000 }, async () => {
  const empty = await serveSite(null);
  await assert.rejects(listSourceSkills(empty.url, {}), /has no skills index \(neither \/\.well-known\/agent-skills\/index\.json nor \/\.well-known\/skills\/index\.json\)/);
  const { server, target, root } = await site([lone("alpha")]);
  const indexFile = path.join(root, ".well-known", "agent-skills", "index.json");
  const index = JSON.parse(fs.readFileSync(indexFile, "utf8")) as { skills: unknown[] };
  index.skills.push({ name: "Bad_Name", type: "skill-md", description: "x", url: "x", digest: "sha256:00" });
  fs.writeFileSync(indexFile, JSON.stringify(index));
  const report = await installSkills(server.url, { target });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["Bad_Name", "refused"], ["alpha", "installed"]]);
  assert.match(report.skills[0]!.messages.join("\n"), /is not a skill name[^]*digest is not sha256/);
});

test("the index body is bounded: exactly the limit is read, one byte past it is refused", { timeout: 60_000 }, async () => {
  const server = await serveSite(null);
  const json = JSON.stringify({ $schema: DISCOVERY_SCHEMA, skills: [] });
  server.answer("/.well-known/agent-skills/index.json", { body: json + " ".repeat(MAX_INDEX_BYTES - json.length), headers: { "content-type": "application/json" } });
  const listing = await listSourceSkills(server.url, {});
  assert.deepEqual(listing.skills, []);
  server.answer("/.well-known/agent-skills/index.json", { body: json + " ".repeat(MAX_INDEX_BYTES - json.length + 1) });
  await assert.rejects(listSourceSkills(server.url, {}), /is larger than 1048576 bytes/);
});

test("--skill fetches only the named skills; --list shows them all and installs nothing", { timeout: 60_000 }, async () => {
  const { server, target } = await site([lone("alpha"), packed("beta")]);
  const listing = await listSourceSkills(server.url, {});
  assert.deepEqual(listing.skills.map((s) => [s.name, s.installable]), [["alpha", true], ["beta", true]]);
  assert.equal(fs.existsSync(target.dir), false);
  server.requests.length = 0;
  const report = await installSkills(server.url, { target, skills: ["beta"] });
  assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [["beta", "installed"]]);
  assert.equal(server.requests.includes("/.well-known/agent-skills/alpha/SKILL.md"), false);
  // --path on a site names one of its skills' folders, as for any SOURCE.
  assert.deepEqual((await listSourceSkills(server.url, { path: "alpha" })).skills.map((s) => s.name), ["alpha"]);
});

test("update re-reads the index: a changed artifact is updated, an unchanged one is not; --frozen refuses a site that moved on", { timeout: 60_000 }, async () => {
  const { server, target, root } = await site([lone("alpha"), packed("beta")]);
  await installSkills(server.url, { target });
  writeSite(root, [lone("alpha", "Now different.\n"), packed("beta")]);
  const updated = await updateSkills({ target });
  assert.deepEqual(updated.skills.map((s) => [s.name, s.status]), [["alpha", "updated"], ["beta", "unchanged"]]);
  assert.match(fs.readFileSync(path.join(target.dir, "alpha", "SKILL.md"), "utf8"), /Now different/);
  assert.equal(readSkillsLock(target.lockfile).get(".agents/skills")!.get("alpha")!.wellKnownDigest, sha(skillText("alpha", "Now different.\n")));

  fs.rmSync(target.dir, { recursive: true });
  const frozen = await installLockedSkills({ target });
  assert.deepEqual(frozen.skills.map((s) => [s.name, s.status]), [["alpha", "installed"], ["beta", "installed"]]);
  writeSite(root, [lone("alpha", "Moved on again.\n"), packed("beta")]);
  fs.rmSync(target.dir, { recursive: true });
  const moved = await installLockedSkills({ target });
  assert.deepEqual(moved.skills.map((s) => [s.name, s.status]), [["alpha", "refused"], ["beta", "installed"]]);
  assert.match(moved.skills[0]!.messages[0]!, /do not match the locked digest/);
});

test("update of a skill whose artifact no longer matches its digest is refused with that reason, and the installed skill stays", { timeout: 60_000 }, async () => {
  const { server, target, root } = await site([lone("alpha"), packed("beta")]);
  await installSkills(server.url, { target });
  writeSite(root, [{ ...lone("alpha", "Swapped.\n"), digest: sha(skillText("alpha")) }, packed("beta")]);
  const updated = await updateSkills({ target });
  assert.deepEqual(updated.skills.map((s) => [s.name, s.status]), [["alpha", "refused"], ["beta", "unchanged"]]);
  assert.match(updated.skills[0]!.messages[0]!, /does not match its digest in the index/);
  assert.equal(fs.readFileSync(path.join(target.dir, "alpha", "SKILL.md"), "utf8"), skillText("alpha"));
});

test("a redirect is followed only to a URL a SOURCE could name: loopback http or https, never plain http elsewhere", { timeout: 60_000 }, async () => {
  const { server, target } = await site([lone("alpha")]);
  const front = await serveSite(null);
  front.answer("/.well-known/agent-skills/index.json", { status: 302, headers: { location: `${server.url}/.well-known/agent-skills/index.json` } });
  const listing = await listSourceSkills(front.url, {});
  assert.deepEqual(listing.skills.map((s) => s.name), ["alpha"]);
  // The artifact URLs resolve against the index that answered.
  assert.equal((await installSkills(front.url, { target })).skills[0]!.status, "installed");
  front.answer("/.well-known/agent-skills/index.json", { status: 302, headers: { location: "http://192.0.2.1/.well-known/agent-skills/index.json" } });
  await assert.rejects(listSourceSkills(front.url, {}), /plain http:\/\/ is accepted only on this machine's loopback/);
});

test("no temporary folder of a site is left behind, whether the install succeeds or a digest fails", { timeout: 60_000 }, async () => {
  const { server, target } = await site([lone("alpha"), { ...packed("beta"), digest: sha("x") }]);
  const tmp = tempDir("skillport-tmpdir-");
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    await installSkills(server.url, { target });
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  assert.deepEqual(fs.readdirSync(tmp), []);
});
