/**
 * Symlinks planted in a source (SPEC §2, SECURITY.md): a link into another agent's private skills
 * shows them to nobody but that agent, and a link out of a source is followed only when the
 * source opts in. Everything here goes through a real runtime and real sessions.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import type { SkillSource } from "../../src/registry/types.js";
import type { Envelope, ListData } from "../../src/tool/envelope.js";
import { realTempDir, writeSkill } from "../support/tmp.js";
import { eventually } from "../support/eventually.js";
import { assertEnvelope } from "./support.js";

const SECRET_BODY = "Private steps only agent a may follow.";

function listed(envelope: Envelope): string[] {
  assertEnvelope(envelope);
  assert.equal(envelope.ok, true);
  return (envelope.data as ListData).skill_groups.flatMap((g) => g.skills.map((s) => s.name)).sort();
}

/** Agent a's private folder, and a project folder whose author linked to it by directory and by file. */
function linkedToPrivate(): { root: string; privateA: string; project: string } {
  const root = realTempDir("skillport-private-links");
  const privateA = path.join(root, "agents", "a");
  const secret = writeSkill(privateA, "secret-plan", "name: secret-plan\ndescription: Agent a's own plan.", `${SECRET_BODY}\n`);
  fs.mkdirSync(path.join(secret, "references"));
  fs.writeFileSync(path.join(secret, "references", "notes.md"), "private notes\n");
  const project = path.join(root, "repo", ".agents", "skills");
  writeSkill(project, "project-own", "name: project-own\ndescription: The project's own skill.");
  fs.symlinkSync(secret, path.join(project, "secret-plan"));
  fs.mkdirSync(path.join(project, "by-file"));
  fs.symlinkSync(path.join(secret, "SKILL.md"), path.join(project, "by-file", "SKILL.md"));
  return { root, privateA, project };
}

async function runtimeWith(root: string, sources: SkillSource[]): Promise<SkillRuntime> {
  return createSkillRuntime({ sources, agents: { a: {}, b: {} }, projects: { p: {} }, cwd: root, home: root, env: {} });
}

/** What agent b, working in project p, can get at: listing, activation, reads and diagnostics. */
async function assertHiddenFromB(runtime: SkillRuntime, privateA: string, label: string): Promise<void> {
  const b = runtime.session({ agentId: "b", projectId: "p", log: false });
  const names = listed(await b.call({}));
  assert.ok(names.includes("project-own"), `${label}: the project's own skill still loads`);
  assert.deepEqual(names.filter((n) => n !== "project-own"), [], `${label}: b lists nothing of a's`);
  for (const args of [{ name: "secret-plan" }, { name: "secret-plan", file_path: "SKILL.md" }, { name: "secret-plan", file_path: "references/notes.md" }, { name: "by-file" }]) {
    const envelope = await b.call(args);
    assertEnvelope(envelope);
    assert.equal(envelope.error?.code, "skill_not_found", `${label}: b cannot use ${JSON.stringify(args)}`);
    assert.ok(!JSON.stringify(envelope).includes(SECRET_BODY), label);
  }
  assert.deepEqual(b.loaded(), []);
  const seenByB = JSON.stringify(runtime.diagnostics({ agentId: "b", projectId: "p" }));
  for (const leak of [privateA, "secret-plan", "agent 'a'", "'a''s"]) assert.ok(!seenByB.includes(leak), `${label}: b's diagnostics mention ${leak}: ${seenByB}`);
}

test("a project linking to another agent's private skill (directory or SKILL.md) shows it to no other agent", async (t) => {
  const { root, privateA, project } = linkedToPrivate();
  // Even a project that opts in to links out of its folder gets no way into a's skills.
  for (const followExternalLinks of [undefined, true]) {
    const label = `project source, followExternalLinks ${String(followExternalLinks)}`;
    const runtime = await runtimeWith(root, [
      { path: privateA, origin: "agent", agentId: "a" },
      { path: project, origin: "project", projectId: "p", ...(followExternalLinks === undefined ? {} : { followExternalLinks }) },
    ]);
    t.after(() => runtime.close());
    await assertHiddenFromB(runtime, privateA, label);

    const a = runtime.session({ agentId: "a", projectId: "p", log: false });
    assert.deepEqual(listed(await a.call({})), ["project-own", "secret-plan"], `${label}: a still has its own skill, once`);
    const activation = await a.call({ name: "secret-plan" });
    assert.equal(activation.ok, true);
    assert.ok(JSON.stringify(activation).includes(SECRET_BODY));
  }
});

test("a global folder linking to an agent's private skill shows it to no other agent; the owner and the operator are told", async (t) => {
  const { root, privateA, project } = linkedToPrivate();
  // Global sources follow links out of their folder by default, so only the private rule stands in the way.
  const runtime = await runtimeWith(root, [
    { path: project, origin: "global" },
    { path: privateA, origin: "agent", agentId: "a" },
  ]);
  t.after(() => runtime.close());
  await assertHiddenFromB(runtime, privateA, "global source");
  const forA = runtime.diagnostics({ agentId: "a" }).filter((d) => d.code === "private_skill_link");
  assert.deepEqual(forA.map((d) => path.relative(project, d.path)).sort(), ["by-file/SKILL.md", "secret-plan"]);
  assert.match(forA[0]!.message, /agent 'a''s private skills; not followed/);
  assert.equal(runtime.diagnostics().filter((d) => d.code === "private_skill_link").length, 2, "the unscoped view shows them too");
  assert.deepEqual(runtime.registry({ agentId: "b" }).list().map((s) => s.name), ["project-own"]);
});

test("an agent's private folder nested in a shared one stays private to it", async (t) => {
  const root = realTempDir("skillport-nested-private");
  const shared = path.join(root, "skills");
  writeSkill(shared, "for-everyone", "name: for-everyone\ndescription: Shared.");
  const privateA = path.join(shared, "agent-a");
  writeSkill(privateA, "only-a", "name: only-a\ndescription: Private to a.");
  const runtime = await runtimeWith(root, [
    { path: shared, origin: "global" },
    { path: privateA, origin: "agent", agentId: "a" },
  ]);
  t.after(() => runtime.close());
  assert.deepEqual(runtime.registry({ agentId: "b" }).list().map((s) => s.name), ["for-everyone"]);
  assert.deepEqual(runtime.registry({ agentId: "a" }).list().map((s) => s.name).sort(), ["for-everyone", "only-a"]);
  assert.deepEqual(runtime.snapshot().skills.map((s) => [s.name, s.origin]), [["only-a", "agent"], ["for-everyone", "global"]], "loaded once, as a's");
});

test("a link to / inside a source is not walked: it contains the link, so it ends as a loop", async (t) => {
  const root = realTempDir("skillport-link-to-root");
  const skills = path.join(root, "skills");
  writeSkill(skills, "own", "name: own\ndescription: The only skill here.");
  fs.symlinkSync("/", path.join(skills, "x"));
  const runtime = await runtimeWith(root, [{ path: skills, origin: "global" }]);
  t.after(() => runtime.close());
  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), ["own"]);
  assert.deepEqual(runtime.diagnostics().map((d) => [d.code, path.basename(d.path)]), [["symlink_loop", "x"]]);
});

test("links out of a project source are refused with a warning unless it opts in; global sources follow them", async (t) => {
  const root = realTempDir("skillport-external-links");
  const checkout = path.join(root, "checkout");
  const outside = writeSkill(checkout, "from-checkout", "name: from-checkout\ndescription: Kept in a checkout.");
  writeSkill(checkout, "file-target", "name: by-file-link\ndescription: A SKILL.md kept elsewhere.");
  const folder = path.join(root, "folder");
  writeSkill(folder, "own", "name: own\ndescription: Lives here.");
  fs.symlinkSync(outside, path.join(folder, "from-checkout"));
  fs.mkdirSync(path.join(folder, "by-file-link"));
  fs.symlinkSync(path.join(checkout, "file-target", "SKILL.md"), path.join(folder, "by-file-link", "SKILL.md"));

  const namesWith = async (source: SkillSource) => {
    const runtime = await runtimeWith(root, [source]);
    t.after(() => runtime.close());
    return {
      names: runtime.snapshot().skills.map((s) => s.name).sort(),
      refused: runtime.diagnostics().filter((d) => d.code === "symlink_external").map((d) => path.relative(folder, d.path)).sort(),
    };
  };
  const refusing = await namesWith({ path: folder, origin: "project", projectId: "p" });
  assert.deepEqual(refusing, { names: ["own"], refused: ["by-file-link/SKILL.md", "from-checkout"] });
  const warning = (await runtimeWith(root, [{ path: folder, origin: "agent", agentId: "a" }])).diagnostics().find((d) => d.code === "symlink_external")!;
  assert.match(warning.message, /leads outside source .*; not followed \(set followExternalLinks on the source to follow it\)/);
  assert.ok(!warning.message.includes(checkout), "the warning does not say where the link leads");

  const everything = { names: ["by-file-link", "from-checkout", "own"], refused: [] };
  assert.deepEqual(await namesWith({ path: folder, origin: "project", projectId: "p", followExternalLinks: true }), everything);
  assert.deepEqual(await namesWith({ path: folder, origin: "project", projectId: "p", linkRoot: root }), everything, "a wider link root");
  assert.deepEqual(await namesWith({ path: folder, origin: "global" }), everything, "the user's own folders follow links by default");
  assert.deepEqual(await namesWith({ path: folder, origin: "global", followExternalLinks: false }), { names: ["own"], refused: ["by-file-link/SKILL.md", "from-checkout"] });
});

test("default project folders follow links inside the repository, never out of it", async (t) => {
  const root = realTempDir("skillport-repo-links");
  const repo = path.join(root, "repo");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  const kept = writeSkill(path.join(repo, "skills"), "in-repo", "name: in-repo\ndescription: Kept in the repository's skills folder.");
  const away = writeSkill(path.join(root, "elsewhere"), "out-of-repo", "name: out-of-repo\ndescription: Outside the repository.");
  const folder = path.join(repo, ".claude", "skills");
  fs.mkdirSync(folder, { recursive: true });
  fs.symlinkSync(kept, path.join(folder, "in-repo"));
  fs.symlinkSync(away, path.join(folder, "out-of-repo"));
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  const runtime = await createSkillRuntime({ cwd: repo, home, env: {} });
  t.after(() => runtime.close());
  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), ["in-repo"]);
  assert.deepEqual(runtime.diagnostics().map((d) => [d.code, path.relative(repo, d.path)]), [["symlink_external", ".claude/skills/out-of-repo"]]);
});

/** A repository with a `.git`, an empty HOME, and a skill kept outside the repository. */
function repoWithOutside(prefix: string): { root: string; repo: string; home: string; outside: string } {
  const root = realTempDir(prefix);
  const repo = path.join(root, "repo");
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  const outside = path.join(root, "outside");
  const other = writeSkill(outside, "other-skill", "name: other-skill\ndescription: Kept outside the repository.");
  fs.writeFileSync(path.join(other, "notes.txt"), "outside-notes-3b9e\n");
  return { root, repo, home, outside };
}

test("a default project folder that is itself a link out of the repository is refused with symlink_external and never walked; one linked inside it is followed", { timeout: 60_000 }, async (t) => {
  const { root, repo, home, outside } = repoWithOutside("skillport-folder-link");
  fs.mkdirSync(path.join(repo, ".claude"));
  fs.symlinkSync("../../outside", path.join(repo, ".claude", "skills"));
  // The whole disk: refused before a single directory of it is listed.
  fs.mkdirSync(path.join(repo, ".agents"));
  fs.symlinkSync("/", path.join(repo, ".agents", "skills"));
  const runtime = await createSkillRuntime({ cwd: repo, home, env: {} });
  t.after(() => runtime.close());

  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), []);
  assert.equal(runtime.stats().reads, 0, "no SKILL.md was read through either folder");
  const diagnostics = runtime.diagnostics();
  assert.deepEqual(diagnostics.map((d) => [d.code, path.relative(repo, d.path)]).sort(), [
    ["symlink_external", ".agents/skills"],
    ["symlink_external", ".claude/skills"],
  ]);
  for (const d of diagnostics) {
    assert.match(d.message, /is reached through a link leading outside .*; not walked/);
    assert.ok(!d.message.includes(outside) && !d.message.includes(root + "/outside"), `the warning does not say where the link leads: ${d.message}`);
  }
  const session = runtime.session({ log: false });
  const read = await session.call({ name: "other-skill", file_path: "notes.txt" });
  assert.equal(read.error?.code, "skill_not_found");

  // A folder linked to a place inside the repository is the repository's own.
  const inside = writeSkill(path.join(repo, "shared-skills"), "in-repo", "name: in-repo\ndescription: Kept in the repository.");
  fs.unlinkSync(path.join(repo, ".claude", "skills"));
  fs.symlinkSync(path.dirname(inside), path.join(repo, ".claude", "skills"));
  await runtime.refresh();
  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), ["in-repo"]);
});

test("an explicit source whose folder is a link out of its linkRoot is refused; without linkRoot the folder named is its own root", { timeout: 60_000 }, async (t) => {
  const { root, repo, outside } = repoWithOutside("skillport-explicit-folder-link");
  const folder = path.join(repo, "skills");
  fs.symlinkSync(outside, folder);
  const withRoot = await runtimeWith(root, [{ path: folder, origin: "project", projectId: "p", linkRoot: repo }]);
  t.after(() => withRoot.close());
  assert.deepEqual(withRoot.snapshot().skills.map((s) => s.name), []);
  assert.deepEqual(withRoot.diagnostics().map((d) => [d.code, d.path]), [["symlink_external", folder]]);

  const named = await runtimeWith(root, [{ path: folder, origin: "project", projectId: "p" }]);
  t.after(() => named.close());
  assert.deepEqual(named.snapshot().skills.map((s) => s.name), ["other-skill"], "the operator named this folder, link and all");
  const wide = await runtimeWith(root, [{ path: folder, origin: "project", projectId: "p", linkRoot: root }]);
  t.after(() => wide.close());
  assert.deepEqual(wide.snapshot().skills.map((s) => s.name), ["other-skill"], "a link root that holds the target");
});

test("under watch, a project folder replaced by a link out of the repository, or created as one, is refused and never loads what it leads to", { timeout: 90_000 }, async (t) => {
  const { repo, home } = repoWithOutside("skillport-watched-folder-link");
  const claude = path.join(repo, ".claude", "skills");
  writeSkill(claude, "own", "name: own\ndescription: The repository's own skill.");
  const runtime = await createSkillRuntime({ cwd: repo, home, env: {}, watch: true, watchDebounceMs: 20 });
  t.after(() => runtime.close());
  const everLoaded = new Set<string>();
  runtime.onChange((snapshot) => snapshot.skills.forEach((s) => everLoaded.add(s.name)));
  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), ["own"]);
  const refused = (folder: string) => runtime.diagnostics().some((d) => d.code === "symlink_external" && d.path === folder);

  fs.renameSync(claude, path.join(repo, ".claude", "skills-away"));
  fs.symlinkSync("../../outside", claude);
  await eventually(() => refused(claude), ".claude/skills refused after the swap");
  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), []);

  // A folder missing at the start, created later as a link out.
  const agents = path.join(repo, ".agents", "skills");
  fs.mkdirSync(path.dirname(agents));
  fs.symlinkSync("../../outside", agents);
  await eventually(() => refused(agents), ".agents/skills refused once created");
  assert.deepEqual(runtime.snapshot().skills.map((s) => s.name), []);
  assert.ok(!everLoaded.has("other-skill"), "the skill outside never loaded");

  // Put back as a real folder: watched and walked again.
  fs.unlinkSync(claude);
  fs.renameSync(path.join(repo, ".claude", "skills-away"), claude);
  await eventually(() => runtime.snapshot().skills.some((s) => s.name === "own"), "the real folder loads again");
});
