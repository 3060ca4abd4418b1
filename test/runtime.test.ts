import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createSkillRuntime } from "../src/runtime.js";
import { tempDir, writeSkill } from "./registry/skill-tree.js";
import { eventually } from "./support/eventually.js";

test("with no sources, the default project and user directories are scanned; missing ones are silent", async (t) => {
  const cwd = tempDir(t, "skillport-runtime-cwd-");
  const home = tempDir(t, "skillport-runtime-home-");
  writeSkill(path.join(cwd, ".agents", "skills"), "project-skill");
  writeSkill(path.join(home, ".claude", "skills"), "user-skill");
  const runtime = await createSkillRuntime({ cwd, home, env: {} });
  t.after(() => runtime.close());
  const listed = runtime.registry().list();
  assert.deepEqual(
    listed.map((s) => [s.name, s.origin, s.label]),
    [
      ["project-skill", "project", "Project"],
      ["user-skill", "global", "Global"],
    ],
  );
  assert.deepEqual(runtime.diagnostics(), []);
  assert.equal(runtime.snapshot().version, 1);
});

test("agent and project policies shape each scope; project labels come from the project policy", async (t) => {
  const root = tempDir(t);
  writeSkill(path.join(root, "global"), "shared-a");
  writeSkill(path.join(root, "global"), "shared-b");
  writeSkill(path.join(root, "proj"), "proj-only");
  const runtime = await createSkillRuntime({
    sources: [
      { path: path.join(root, "global"), origin: "global" },
      { path: path.join(root, "proj"), origin: "project", projectId: "p" },
    ],
    agents: { narrow: { allowedSkills: ["shared-b"] }, locked: { deniedTools: ["skill"] } },
    projects: { p: { label: "Payments" } },
    env: {},
  });
  t.after(() => runtime.close());
  assert.deepEqual(runtime.registry({ agentId: "narrow" }).list().map((s) => s.name), ["shared-b"]);
  const inProject = runtime.registry({ projectId: "p", agentId: "narrow" }).list();
  assert.deepEqual(inProject.map((s) => [s.name, s.label]), [
    ["proj-only", "Payments"],
    ["shared-b", "Global"],
  ]);
  assert.equal(runtime.registry({ agentId: "locked" }).toolAvailable, false);
  assert.equal(runtime.registry({ agentId: "narrow" }), runtime.registry({ agentId: "narrow" }));
});

test("requirement checks read the env option, not the process environment", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "needs-token", { frontmatter: "metadata:\n  requirements:\n    env: RUNTIME_TEST_TOKEN" });
  process.env.RUNTIME_TEST_TOKEN = "from-process";
  t.after(() => delete process.env.RUNTIME_TEST_TOKEN);
  const withOption = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {} });
  t.after(() => withOption.close());
  assert.equal(withOption.registry().availability("needs-token")?.status, "unavailable");
  const fromProcess = await createSkillRuntime({ sources: [{ path: root, origin: "global" }] });
  t.after(() => fromProcess.close());
  assert.equal(fromProcess.registry().availability("needs-token")?.status, "available");
});

test("refresh picks up changes and reports whether anything changed", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "first");
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {} });
  t.after(() => runtime.close());
  const unchanged = await runtime.refresh();
  assert.ok(unchanged.ok && !unchanged.changed);
  writeSkill(root, "second");
  const changed = await runtime.refresh();
  assert.ok(changed.ok && changed.changed);
  assert.deepEqual(runtime.registry().list().map((s) => s.name), ["first", "second"]);
});

test("watching: a new skill in a source refreshes the registry and fires onChange", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "existing");
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, watch: true, watchDebounceMs: 30 });
  t.after(() => runtime.close());
  const changed = new Promise<string[]>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error("no change event within the guard time")), 15_000);
    runtime.onChange((snapshot) => {
      const names = snapshot.skills.map((s) => s.name);
      if (names.includes("arrived")) {
        clearTimeout(guard);
        resolve(names);
      }
    });
  });
  writeSkill(path.join(root, "nested"), "arrived");
  assert.deepEqual(await changed, ["existing", "arrived"]);
  assert.ok(runtime.registry().get("arrived"));
});

test("watching follows a source replaced by another directory, or removed and made again", async (t) => {
  const parent = tempDir(t);
  const root = path.join(parent, "skills");
  writeSkill(root, "first");
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, watch: true, watchDebounceMs: 30 });
  t.after(() => runtime.close());
  const names = () => runtime.registry().list().map((s) => s.name);

  // A checkout or copy-over: another directory renamed into the source's place.
  writeSkill(`${root}.new`, "swapped-in");
  fs.rmSync(root, { recursive: true });
  fs.renameSync(`${root}.new`, root);
  await eventually(() => names().join() === "swapped-in", "the swap to be seen");
  writeSkill(root, "after-swap");
  await eventually(() => names().includes("after-swap"), "a skill written into the swapped-in directory to be seen");

  // Removed, then made again a moment later: the source is looked for until it is back.
  fs.rmSync(root, { recursive: true });
  await eventually(() => names().length === 0, "the removal to be seen");
  await new Promise((resolve) => setTimeout(resolve, 100));
  writeSkill(root, "recreated");
  await eventually(() => names().includes("recreated"), "the recreated source to be seen");
  writeSkill(root, "after-recreate");
  await eventually(() => names().includes("after-recreate"), "a skill written into the recreated source to be seen");
  assert.deepEqual(runtime.diagnostics().filter((d) => d.code === "watch_failed"), []);
});

test("a watching runtime lets the process exit once closed", () => {
  const runtimeModule = new URL("../src/runtime.ts", import.meta.url).href;
  const script = `
    import * as fs from "node:fs";
    import * as os from "node:os";
    import * as path from "node:path";
    const { createSkillRuntime } = await import(${JSON.stringify(runtimeModule)});
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-runtime-exit-"));
    fs.mkdirSync(path.join(root, "s"));
    fs.writeFileSync(path.join(root, "s", "SKILL.md"), "---\\nname: s\\ndescription: d\\n---\\nbody\\n");
    const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], watch: true, env: {} });
    fs.writeFileSync(path.join(root, "s", "SKILL.md"), "---\\nname: s\\ndescription: changed\\n---\\nbody\\n");
    await runtime.close();
    fs.rmSync(root, { recursive: true });
    console.log("closed");
  `;
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(child.signal, null, "the process ended by itself");
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), "closed");
});

test("sessions run over the live registry: a skill dropped in after start activates", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "present", { body: "Present body." });
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, cwd: root });
  t.after(() => runtime.close());
  const session = runtime.session({ log: false });
  t.after(() => session.close());
  const listed = await session.call({});
  assert.equal(listed.ok, true);
  writeSkill(root, "late", { body: "Late body." });
  const activated = await session.call({ name: "late" });
  assert.equal(activated.ok, true, JSON.stringify(activated.error));
  assert.match((activated.data as { content: string }).content, /Late body\./);
});
