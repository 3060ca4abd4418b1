import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { openSkillRuntime } from "../src/runtime-core.js";
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

test("a named source that does not exist is a source_missing warning, gone once the folder exists; default folders stay silent", async (t) => {
  const root = tempDir(t, "skillport-runtime-missing-");
  const missing = path.join(root, "not-yet");
  const runtime = await createSkillRuntime({ sources: [{ path: missing, origin: "project" }], env: {} });
  t.after(() => runtime.close());
  assert.equal(runtime.registry().list().length, 0);
  assert.deepEqual(
    runtime.diagnostics().map((d) => [d.path, d.severity, d.code]),
    [[missing, "warning", "source_missing"]],
  );
  assert.match(runtime.diagnostics()[0]!.message, /does not exist; it contributes no skills until it is created/);

  writeSkill(missing, "now-here");
  await runtime.refresh();
  assert.deepEqual(runtime.registry().list().map((s) => s.name), ["now-here"]);
  assert.deepEqual(runtime.diagnostics(), []);

  // The same folder marked optional, as the default folders are, is an empty contribution without a word.
  const quiet = await createSkillRuntime({ sources: [{ path: path.join(root, "never"), origin: "global", optional: true }], env: {} });
  t.after(() => quiet.close());
  assert.deepEqual(quiet.diagnostics(), []);
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

test("createSkillRuntime refuses sources, agents, projects and env of the wrong shape with a TypeError naming the field", async (t) => {
  const root = tempDir(t);
  writeSkill(root, "debugging");
  const source = { path: root, origin: "global" as const };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    // A string where a list belongs made membership a substring test: "bug" was allowed.
    [{ agents: { a: { allowedSkills: "debugging" } } }, /^agents\.a\.allowedSkills must be an array of strings$/],
    [{ agents: { a: { allowedTools: "skill_manage" } } }, /^agents\.a\.allowedTools must be an array of strings$/],
    [{ agents: { a: { excludedSkills: [1] } } }, /^agents\.a\.excludedSkills must be an array of strings$/],
    [{ agents: { a: { deniedTools: ["skill", ""] } } }, /^agents\.a\.deniedTools\[1\] must not be empty$/],
    [{ agents: { a: { allowedSkill: ["x"] } } }, /^agents\.a\.allowedSkill is not a known option; allowed: allowedSkills, excludedSkills, allowedTools, deniedTools$/],
    [{ agents: { a: "all" } }, /^agents\.a must be an object$/],
    [{ agents: [] }, /^agents must be an object mapping ids to policies$/],
    [{ agents: null }, /^agents must be an object mapping ids to policies$/],
    [{ projects: { p: { sharedSkills: "debugging" } } }, /^projects\.p\.sharedSkills must be an array of strings$/],
    [{ projects: { p: { toolWhitelist: [null] } } }, /^projects\.p\.toolWhitelist must be an array of strings$/],
    [{ projects: { p: { label: 5 } } }, /^projects\.p\.label must be a non-empty string$/],
    [{ projects: { "my project": { disabledSkills: {} } } }, /^projects\["my project"\]\.disabledSkills must be an array of strings$/],
    [{ sources: source }, /^sources must be an array/],
    [{ sources: [root] }, /^sources\[0\] must be an object/],
    [{ sources: [{ path: 1, origin: "global" }] }, /^sources\[0\]\.path must be a non-empty string$/],
    [{ sources: [{ path: root }] }, /^sources\[0\]\.origin is required$/],
    [{ sources: [{ path: root, origin: "team" }] }, /^sources\[0\]\.origin must be one of "bundled", "global", "project", "agent"$/],
    [{ sources: [{ path: root, origin: "agent" }] }, /^sources\[0\]\.agentId is required when origin is "agent"$/],
    [{ sources: [{ ...source, maxDirectories: 0 }] }, /^sources\[0\]\.maxDirectories must be a whole number of at least 1$/],
    [{ sources: [{ ...source, followExternalLinks: "yes" }] }, /^sources\[0\]\.followExternalLinks must be true or false$/],
    [{ sources: [{ ...source, recursive: true }] }, /^sources\[0\]\.recursive is not a known option/],
    [{ env: { TOKEN: 1 } }, /^env\.TOKEN must be a string$/],
    [{ env: "TOKEN=x" }, /^env must be an object/],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(createSkillRuntime({ sources: [source], env: {}, cwd: root, home: root, ...options } as never), (error: unknown) => {
      assert.ok(error instanceof TypeError, `${JSON.stringify(options)} gives a TypeError`);
      assert.match(error.message, message);
      return true;
    });
  }
  // Well-formed options, including an explicit undefined and an unset env variable, still open.
  const runtime = await createSkillRuntime({
    // A project source without an id is the unnamed project, as the default sources use it.
    sources: [{ ...source, label: undefined }, { path: root, origin: "project" }],
    agents: { a: { allowedSkills: ["debugging"], deniedTools: undefined } },
    projects: { p: {} },
    env: { SET: "1", UNSET: undefined as unknown as string },
    cwd: root,
    home: root,
  });
  t.after(() => runtime.close());
  assert.deepEqual(runtime.registry({ agentId: "a" }).list().map((s) => s.name), ["debugging"]);
});

test("a policy naming a skill that exists nowhere gets an unknown_skill_name warning, recomputed after a refresh", async (t) => {
  const root = tempDir(t);
  writeSkill(path.join(root, "global"), "debugging");
  writeSkill(path.join(root, "agent-b"), "b-private");
  const runtime = await createSkillRuntime({
    sources: [
      { path: path.join(root, "global"), origin: "global" },
      { path: path.join(root, "agent-b"), origin: "agent", agentId: "b" },
    ],
    agents: { a: { allowedSkills: ["*", "debuging", "debugging"], excludedSkills: ["b-private"] }, b: { excludedSkills: ["b-private", "ghost"] } },
    projects: { p: { sharedSkills: ["ghost"], disabledSkills: ["debugging"] } },
    env: {},
    cwd: root,
    home: root,
  });
  t.after(() => runtime.close());
  const unknown = (scope?: { agentId?: string; projectId?: string }) =>
    runtime.diagnostics(scope).filter((d) => d.code === "unknown_skill_name").map((d) => `${d.path}: ${d.message}`);
  assert.deepEqual(unknown(), [
    'agents.a.allowedSkills: agents.a.allowedSkills names "debuging", but no loaded skill has that name; check the spelling',
    'agents.b.excludedSkills: agents.b.excludedSkills names "ghost", but no loaded skill has that name; check the spelling',
    'projects.p.sharedSkills: projects.p.sharedSkills names "ghost", but no loaded skill has that name; check the spelling',
  ]);
  assert.ok(runtime.diagnostics().every((d) => d.code !== "unknown_skill_name" || d.severity === "warning"));
  // Acting as agent a: its own policy only, and agent b's private skill is as unknown to it as a missing one.
  assert.deepEqual(unknown({ agentId: "a" }).map((line) => line.split(":")[0]), ["agents.a.allowedSkills", "agents.a.excludedSkills"]);
  assert.deepEqual(unknown({ agentId: "b", projectId: "p" }).map((line) => line.split(":")[0]), ["agents.b.excludedSkills", "projects.p.sharedSkills"]);

  writeSkill(path.join(root, "global"), "ghost");
  fs.rmSync(path.join(root, "global", "debugging"), { recursive: true });
  await runtime.refresh();
  assert.deepEqual(unknown().map((line) => line.split(" names ")[1]), ['"debuging", but no loaded skill has that name; check the spelling', '"debugging", but no loaded skill has that name; check the spelling', '"debugging", but no loaded skill has that name; check the spelling']);
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

test("a runtime opened without sessions serves the same registry and refuses to start a conversation; createSkillRuntime's starts one", async (t) => {
  const root = tempDir(t, "skillport-runtime-sessions-");
  writeSkill(root, "alpha", { description: "First." });
  const options = { sources: [{ path: root, origin: "global" as const }], cwd: root, home: root, env: {} };
  const bare = await openSkillRuntime(options, null);
  const whole = await createSkillRuntime(options);
  try {
    assert.deepEqual(bare.registry().list().map((s) => s.name), ["alpha"]);
    assert.deepEqual(bare.registry().list(), whole.registry().list());
    assert.throws(() => bare.session({ log: false }), /opened without sessions/);
    const session = whole.session({ log: false });
    try {
      assert.equal((await session.invoke({ name: "alpha" })).envelope.ok, true);
    } finally {
      session.close();
    }
  } finally {
    await bare.close();
    await whole.close();
  }
});
