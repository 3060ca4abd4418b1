import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { readSkillBody } from "../../src/package/body.js";
import { loadSkillSync } from "../../src/package/load.js";
import type { RegisteredSkill } from "../../src/registry/types.js";
import type { Envelope, FileLoadedData, ListData, LoadedData } from "../../src/tool/envelope.js";
import { createSkillTool } from "../../src/tool/skill-tool.js";
import { makeSkill } from "../support/skill-spec.js";
import { CORPUS, realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "./harness.js";

function errorOf(envelope: Envelope) {
  assert.equal(envelope.ok, false, JSON.stringify(envelope));
  assert.equal(envelope.data, null);
  return envelope.error!;
}

function dataOf<D>(envelope: Envelope): D {
  assert.equal(envelope.ok, true, JSON.stringify(envelope));
  assert.equal(envelope.error, null);
  return envelope.data as D;
}

async function oneSource(options: Omit<Parameters<typeof runtimeHarness>[0], "sources"> = {}) {
  const root = realTempDir("skillport-tool");
  makeSkill(root, "alpha", { body: "Alpha body." });
  makeSkill(root, "beta", { body: "Beta body." });
  const h = await runtimeHarness({ ...globalSource(root), ...options });
  return { root, h, tool: h.tool };
}

test("the schema is flat: two optional described strings, no required, no additionalProperties", async () => {
  const { tool } = await oneSource();
  assert.equal(tool.name, "skill");
  assert.equal(tool.readOnly, true);
  assert.deepEqual(Object.keys(tool.inputSchema).sort(), ["properties", "type"]);
  assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ["file_path", "name"]);
  for (const property of Object.values(tool.inputSchema.properties)) {
    assert.equal(property.type, "string");
    assert.ok(property.description.length > 20);
  }
  assert.ok(!("required" in tool.inputSchema) && !("additionalProperties" in tool.inputSchema));
});

test("malformed arguments are invalid_arguments with a message saying what is wrong", async () => {
  const { tool, h } = await oneSource();
  for (const args of ["alpha", 42, ["alpha"], true]) {
    assert.equal(errorOf(await tool.call(args)).code, "invalid_arguments", JSON.stringify(args));
  }
  const nonString = errorOf(await tool.call({ name: 7 }));
  assert.equal(nonString.code, "invalid_arguments");
  assert.match(nonString.message, /`name` must be a string/);
  assert.match(errorOf(await tool.call({ name: "alpha", file_path: ["x"] })).message, /`file_path` must be a string/);
  assert.match(errorOf(await tool.call({ name: null })).message, /`name` must be a string/);
  for (const args of [{ file_path: "SKILL.md" }, { name: "  ", file_path: "SKILL.md" }]) {
    const error = errorOf(await tool.call(args));
    assert.equal(error.code, "invalid_arguments");
    assert.match(error.message, /needs `name`/);
  }
  assert.equal(h.refreshCalls(), 0);
});

test("unknown arguments are refused, each one named in `unknown` and in the message", async () => {
  const { tool } = await oneSource();
  const error = errorOf(await tool.call({ name: "alpha", action: "load", path: "x" }));
  assert.equal(error.code, "invalid_arguments");
  assert.deepEqual(error.unknown, ["action", "path"]);
  assert.match(error.message, /"action"/);
  assert.match(error.message, /"path"/);
});

test("no arguments, undefined, and a blank name all list", async () => {
  const { tool, h } = await oneSource();
  for (const args of [{}, undefined, { name: "" }, { name: " \t\n" }]) {
    const data = dataOf<ListData>(await tool.call(args));
    assert.equal(data.count, 2);
    assert.deepEqual(data.skill_groups[0]!.skills.map((s) => s.name), ["alpha", "beta"]);
  }
  assert.equal(h.refreshCalls(), 0, "a list never rescans");
});

test("list groups by origin precedence with labels, skills by name, count of all", async () => {
  const agent = realTempDir("skillport-agent");
  const project = realTempDir("skillport-project");
  const global = realTempDir("skillport-global");
  const bundled = realTempDir("skillport-bundled");
  makeSkill(bundled, "zeta", { description: "Bundled zeta." });
  makeSkill(bundled, "shared", { description: "Bundled copy, shadowed." });
  makeSkill(global, "mu", { description: "Global mu." });
  makeSkill(global, "shared", { description: "Global copy wins." });
  makeSkill(global, "delta", { description: "Global delta." });
  makeSkill(project, "pi", { description: "Project pi." });
  makeSkill(agent, "omega", { description: "Agent omega." });
  makeSkill(agent, "alpha", { description: "Agent alpha." });
  // Sources are given out of precedence order on purpose.
  const h = await runtimeHarness({
    sources: [
      { path: bundled, origin: "bundled" },
      { path: global, origin: "global", label: "Team skills" },
      { path: project, origin: "project", projectId: "shop" },
      { path: agent, origin: "agent", agentId: "writer" },
    ],
    projects: { shop: { label: "Webshop" } },
  });
  const data = dataOf<ListData>(await h.tool.call({}, { projectId: "shop", agentId: "writer" }));
  const AGENT_LABEL = data.skill_groups[0]!.label;
  const BUNDLED_LABEL = data.skill_groups[3]!.label;
  assert.ok(AGENT_LABEL.length > 0 && BUNDLED_LABEL.length > 0);
  assert.deepEqual(data, {
    count: 7,
    skill_groups: [
      { origin: "agent", label: AGENT_LABEL, skills: [{ name: "alpha", description: "Agent alpha." }, { name: "omega", description: "Agent omega." }] },
      { origin: "project", label: "Webshop", skills: [{ name: "pi", description: "Project pi." }] },
      {
        origin: "global",
        label: "Team skills",
        skills: [
          { name: "delta", description: "Global delta." },
          { name: "mu", description: "Global mu." },
          { name: "shared", description: "Global copy wins." },
        ],
      },
      { origin: "bundled", label: BUNDLED_LABEL, skills: [{ name: "zeta", description: "Bundled zeta." }] },
    ],
  });
});

test("an empty allowedSkills lists zero skills in zero groups and blocks activation and reads", async () => {
  const { tool } = await oneSource({ agents: { none: { allowedSkills: [] } } });
  const ctx = { agentId: "none" };
  assert.deepEqual(dataOf<ListData>(await tool.call({}, ctx)), { count: 0, skill_groups: [] });
  assert.equal(errorOf(await tool.call({ name: "alpha" }, ctx)).code, "skill_not_found");
  assert.equal(errorOf(await tool.call({ name: "alpha", file_path: "SKILL.md" }, ctx)).code, "skill_not_found");
  assert.equal(dataOf<ListData>(await tool.call({})).count, 2, "other scopes are unaffected");
});

test("when the tool is off for the scope, every call is tool_unavailable and nothing rescans", async () => {
  const { tool, h } = await oneSource({ agents: { off: { deniedTools: ["skill"] } }, projects: { locked: { toolWhitelist: ["bash"] } } });
  for (const ctx of [{ agentId: "off" }, { projectId: "locked" }]) {
    for (const args of [{}, { name: "alpha" }, { name: "alpha", file_path: "SKILL.md" }, { name: "missing" }, { bogus: 1 }]) {
      assert.equal(errorOf(await tool.call(args, ctx)).code, "tool_unavailable", JSON.stringify([ctx, args]));
    }
  }
  assert.equal(h.refreshCalls(), 0);
  assert.equal(dataOf<ListData>(await tool.call({})).count, 2, "the default scope still has the tool");
});

test("activation returns the body alone with every {baseDir} replaced by the skill directory", async () => {
  const root = realTempDir("skillport-basedir");
  const dir = makeSkill(root, "runner", {
    body: "# Runner\n\nRun `{baseDir}/scripts/go.sh`, then read {baseDir}/references/notes.md.\n\n---\n\nA later rule stays in the body.",
  });
  const { tool } = await runtimeHarness(globalSource(root));
  const data = dataOf<LoadedData>(await tool.call({ name: "runner" }));
  assert.equal(data.status, "loaded");
  assert.equal(data.name, "runner");
  assert.equal(
    data.content,
    `# Runner\n\nRun \`${dir}/scripts/go.sh\`, then read ${dir}/references/notes.md.\n\n---\n\nA later rule stays in the body.`,
  );
  assert.ok(!data.content.includes("description:"), "no frontmatter");
  assert.ok(!("resource_files" in data) && !("environment_access" in data));
});

test("resource_files: the whole package, scripts absolute and every other file relative, with guidance", async () => {
  const root = realTempDir("skillport-resources");
  const dir = makeSkill(root, "kit", {
    files: {
      "scripts/run.sh": "#!/bin/sh\n",
      "scripts/lib/helper.py": "",
      "references/api.md": "# API",
      "assets/logo.svg": "<svg/>",
      "other/listed.md": "a file of the package too",
      "forms.md": "at the root",
    },
  });
  const data = dataOf<LoadedData>(await (await runtimeHarness(globalSource(root))).tool.call({ name: "kit" }));
  assert.deepEqual(data.resource_files!.files, [
    path.join(dir, "scripts/lib/helper.py"),
    path.join(dir, "scripts/run.sh"),
    "assets/logo.svg",
    "forms.md",
    "other/listed.md",
    "references/api.md",
  ]);
  assert.match(data.resource_files!.guidance, /only when/);
  assert.doesNotMatch(data.resource_files!.guidance, /cut short/);
});

test("resource_files says when the listing was cut", async () => {
  const root = realTempDir("skillport-many");
  const files: Record<string, string> = {};
  for (let i = 0; i < 505; i++) files[`references/r${String(i).padStart(3, "0")}.md`] = "";
  makeSkill(root, "many", { files });
  const data = dataOf<LoadedData>(await (await runtimeHarness(globalSource(root))).tool.call({ name: "many" }));
  assert.equal(data.resource_files!.files.length, 500);
  assert.match(data.resource_files!.guidance, /cut short/);
});

test("env requirements anywhere in the tree give environment_access with names only, never values", async () => {
  const root = realTempDir("skillport-env");
  makeSkill(root, "deploy", {
    frontmatter: [
      "metadata:",
      "  requirements:",
      "    all:",
      "      - env: DEPLOY_TOKEN",
      "      - any:",
      "          - env: REGION",
      "          - binary: sh",
      "    optional:",
      "      - env: DEPLOY_DEBUG",
    ].join("\n"),
  });
  makeSkill(root, "plain");
  const secret = "s3cr3t-value-never-shown";
  const { tool } = await runtimeHarness({ ...globalSource(root), env: { PATH: process.env.PATH ?? "", DEPLOY_TOKEN: secret } });
  const invocation = await tool.invoke({ name: "deploy" });
  const data = dataOf<LoadedData>(invocation.envelope);
  assert.deepEqual(data.environment_access!.names, ["DEPLOY_TOKEN", "REGION", "DEPLOY_DEBUG"]);
  assert.match(data.environment_access!.guidance, /env_keys/);
  assert.ok(!JSON.stringify(invocation).includes(secret));
  assert.ok(!("environment_access" in dataOf<LoadedData>(await tool.call({ name: "plain" }))));
});

test("the session hook decides fresh vs already_active; no hook means fresh", async () => {
  const { tool } = await oneSource();
  const seen: Array<[string, string]> = [];
  const active = new Set<string>();
  const activateSkill = (name: string, content: string) => {
    seen.push([name, content]);
    if (active.has(`${name}\0${content}`)) return false;
    active.add(`${name}\0${content}`);
    return true;
  };
  assert.equal(dataOf<LoadedData>(await tool.call({ name: "alpha" }, { activateSkill })).status, "loaded");
  const again = await tool.call({ name: "alpha" }, { activateSkill });
  const stub = dataOf<{ name: string; status: string; message: string }>(again);
  assert.deepEqual(Object.keys(stub).sort(), ["message", "name", "status"]);
  assert.equal(stub.status, "already_active");
  assert.equal(stub.name, "alpha");
  assert.match(stub.message, /already loaded/);
  assert.deepEqual(seen, [
    ["alpha", "Alpha body."],
    ["alpha", "Alpha body."],
  ]);
  assert.equal(dataOf<LoadedData>(await tool.call({ name: "alpha" }, { activateSkill: () => undefined })).status, "loaded");
  assert.equal(dataOf<LoadedData>(await tool.call({ name: "alpha" })).status, "loaded");
});

test("a skill created on disk after the registry was cached activates on the first call, after one refresh", async () => {
  const { root, tool, h } = await oneSource();
  makeSkill(root, "late", { body: "Late body." });
  const data = dataOf<LoadedData>(await tool.call({ name: "late" }));
  assert.equal(data.content, "Late body.");
  assert.equal(h.refreshCalls(), 1);
  await tool.call({ name: "late" });
  assert.equal(h.refreshCalls(), 1, "a hit does not rescan");
});

test("a genuinely unknown name refreshes exactly once, then skill_not_found with close names", async () => {
  const { root, tool, h } = await oneSource();
  makeSkill(root, "alphabet");
  makeSkill(root, "gamma");
  const error = errorOf(await tool.call({ name: "alpah" }));
  assert.equal(error.code, "skill_not_found");
  assert.equal(h.refreshCalls(), 1);
  assert.ok(error.suggestions!.includes("alpha"), JSON.stringify(error));
  assert.ok(!error.suggestions!.includes("gamma"));
  assert.ok(error.suggestions!.length <= 3);
  for (const name of error.suggestions!) assert.match(error.message, new RegExp(`"${name}"`));
  errorOf(await tool.call({ name: "completely-different-thing" }));
  assert.equal(h.refreshCalls(), 2, "one refresh per miss");
});

test("a not-allowed skill is indistinguishable from a missing one", async () => {
  const root = realTempDir("skillport-policy");
  makeSkill(root, "hidden-one");
  makeSkill(root, "visible");
  const { tool } = await runtimeHarness({ ...globalSource(root), agents: { limited: { excludedSkills: ["hidden-one"] } } });
  const ctx = { agentId: "limited" };
  const denied = await tool.call({ name: "hidden-one" }, ctx);
  const missing = await tool.call({ name: "hidden-two" }, ctx);
  assert.deepEqual(JSON.parse(JSON.stringify(denied).replaceAll("hidden-one", "NAME")), JSON.parse(JSON.stringify(missing).replaceAll("hidden-two", "NAME")));
  assert.equal(errorOf(denied).code, "skill_not_found");
  assert.ok(!errorOf(missing).suggestions!.includes("hidden-one"), "suggestions never leak a skill outside the scope");
  assert.equal(errorOf(await tool.call({ name: "hidden-one", file_path: "SKILL.md" }, ctx)).code, "skill_not_found");
  assert.ok(!JSON.stringify(dataOf<ListData>(await tool.call({}, ctx))).includes("hidden-one"));
  assert.equal(dataOf<LoadedData>(await tool.call({ name: "hidden-one" })).status, "loaded", "allowed in another scope");
});

test("a skill with disable-model-invocation cannot be activated through the tool", async () => {
  const root = realTempDir("skillport-dmi");
  makeSkill(root, "manual-only", { frontmatter: "disable-model-invocation: true" });
  const { tool } = await runtimeHarness(globalSource(root));
  assert.equal(errorOf(await tool.call({ name: "manual-only" })).code, "skill_not_found");
});

test("unmet requirements: skill_unavailable naming what is missing; the hook is never asked", async () => {
  const root = realTempDir("skillport-unavailable");
  makeSkill(root, "alpha", {
    frontmatter: "metadata:\n  requirements:\n    all:\n      - env: API_KEY\n      - binary: no-such-binary-skillport",
  });
  makeSkill(root, "beta", { frontmatter: "metadata:\n  requirements:\n    all: []" });
  const { tool } = await runtimeHarness(globalSource(root));
  let hooked = 0;
  const activateSkill = () => {
    hooked++;
    return true;
  };
  const error = errorOf(await tool.call({ name: "alpha" }, { activateSkill }));
  assert.equal(error.code, "skill_unavailable");
  assert.equal(error.missing!.length, 2, JSON.stringify(error));
  assert.match(error.missing!.join(" "), /API_KEY/);
  assert.match(error.missing!.join(" "), /no-such-binary-skillport/);
  assert.match(error.message, /API_KEY/);
  assert.match(error.message, /no-such-binary-skillport/);
  const invalid = errorOf(await tool.call({ name: "beta" }, { activateSkill }));
  assert.equal(invalid.code, "skill_unavailable");
  assert.match(invalid.message, /non-empty list/);
  assert.equal(hooked, 0);
});

test("a skill removed from disk between listing and activation: the failed read rescans once, and the answer says it is gone", async () => {
  const { root, tool } = await oneSource();
  fs.rmSync(path.join(root, "beta"), { recursive: true });
  const error = errorOf(await tool.call({ name: "beta" }));
  assert.equal(error.code, "skill_not_found");
  assert.ok(!error.message.includes(root));
  assert.equal(dataOf<ListData>(await tool.call({})).skill_groups.flatMap((g) => g.skills).some((s) => s.name === "beta"), false, "the list no longer offers it");
  const read = errorOf(await tool.call({ name: "beta", file_path: "SKILL.md" }));
  assert.equal(read.code, "skill_not_found");
});

test("a skill whose directory was renamed activates from its new place after the one rescan", async () => {
  const { root, tool } = await oneSource();
  fs.renameSync(path.join(root, "beta"), path.join(root, "beta-moved"));
  const data = dataOf<LoadedData>(await tool.call({ name: "beta" }));
  assert.equal(data.status, "loaded");
});

test("every corpus skill activates with its body as content", async () => {
  const h = await runtimeHarness({ sources: [{ path: CORPUS, origin: "bundled" }] });
  const tool = h.tool;
  const names = fs.readdirSync(CORPUS).sort();
  assert.equal(dataOf<ListData>(await tool.call({})).count, names.length);
  for (const name of names) {
    const data = dataOf<LoadedData>(await tool.call({ name }));
    const skill = loadSkillSync(path.join(CORPUS, name)).skill!;
    assert.equal(data.status, "loaded", name);
    assert.equal(data.content, (await readSkillBody(skill)).split("{baseDir}").join(skill.dir), name);
    assert.ok(data.content.length > 100 && !data.content.startsWith("---"), name);
  }
  const creator = dataOf<LoadedData>(await tool.call({ name: "skill-creator" }));
  assert.ok(creator.resource_files!.files.some((file) => file.startsWith("references/")), "skill-creator has references");
  assert.equal(h.refreshCalls(), 0);
});

/** Rewrites a skill's SKILL.md in place (same inode), as an editor saving over it would. */
function rewriteSkill(root: string, name: string, frontmatter: string, body: string): void {
  const lines = ["---", `name: ${name}`, `description: Does ${name} things.`, frontmatter, "---", "", body, ""];
  fs.writeFileSync(path.join(root, name, "SKILL.md"), lines.join("\n"));
}

/** A session-like hook that keeps the record each fresh activation was read against. */
function recordingHook() {
  const records: Array<{ name: string; content: string; skill: RegisteredSkill | undefined }> = [];
  return {
    records,
    activateSkill: (name: string, content: string, skill?: RegisteredSkill) => {
      records.push({ name, content, skill });
      return true;
    },
  };
}

test("a SKILL.md changed since the snapshot rescans once, so content and manifest come from one version", async () => {
  const root = realTempDir("skillport-stale");
  makeSkill(root, "n", { body: "Old body." });
  const h = await runtimeHarness(globalSource(root));
  rewriteSkill(root, "n", "tools: [read]\nallowed-tools: Read\nmetadata:\n  requirements:\n    optional:\n      - env: NEW_KEY", "New, longer body.");

  const hook = recordingHook();
  const data = dataOf<LoadedData>(await h.tool.call({ name: "n" }, hook));
  assert.equal(data.content, "New, longer body.");
  assert.deepEqual(data.environment_access?.names, ["NEW_KEY"], "requirements of the version read");
  assert.equal(h.refreshCalls(), 1);
  assert.equal(hook.records.length, 1);
  assert.deepEqual(hook.records[0]!.skill?.manifest.tools, ["read"]);
  assert.deepEqual(hook.records[0]!.skill?.manifest.allowedTools, ["Read"]);

  await h.tool.call({ name: "n" }, hook);
  assert.equal(h.refreshCalls(), 1, "an unchanged file does not rescan");
});

test("a SKILL.md still changing after the one rescan is answered from the fresh snapshot, never rescanned again", async () => {
  const root = realTempDir("skillport-churn");
  makeSkill(root, "n", { body: "Version one." });
  const h = await runtimeHarness(globalSource(root));
  let refreshes = 0;
  const tool = createSkillTool({
    resolveRegistry: (scope) => h.runtime.registry(scope),
    refreshSkills: async () => {
      refreshes++;
      await h.runtime.refresh();
      // The file moves on again right after the rescan saw version two.
      rewriteSkill(root, "n", "tools: [bash]", "Version three, the longest of them all.");
    },
  });
  rewriteSkill(root, "n", "tools: [grep]", "Version two, longer.");

  const hook = recordingHook();
  const data = dataOf<LoadedData>(await tool.call({ name: "n" }, hook));
  assert.equal(refreshes, 1);
  assert.equal(data.content, "Version three, the longest of them all.");
  assert.deepEqual(hook.records[0]!.skill?.manifest.tools, ["grep"], "the fresh snapshot's record");
});

test("a requested name is NFKC-normalised like the loaded names: any spelling finds the skill, the envelope names it canonically", async () => {
  const composed = "caf\u00e9";
  const decomposed = "cafe\u0301";
  const root = realTempDir("skillport-nfkc");
  makeSkill(root, composed, { body: "Coffee steps.", files: { "references/menu.md": "Menu." } });
  const h = await runtimeHarness(globalSource(root));

  const hook = recordingHook();
  const loaded = dataOf<LoadedData>(await h.tool.call({ name: decomposed }, hook));
  assert.equal(loaded.name, composed);
  assert.equal(loaded.content, "Coffee steps.");
  assert.equal(hook.records[0]!.name, composed, "the session hook sees the canonical name");

  for (const file_path of ["SKILL.md", "references/menu.md"]) {
    const read = dataOf<FileLoadedData>(await h.tool.call({ name: ` ${decomposed} `, file_path }));
    assert.equal(read.name, composed);
    assert.equal(read.status, "file_loaded");
  }
  assert.equal(h.refreshCalls(), 0, "found on the first lookup, not after a miss");
});
