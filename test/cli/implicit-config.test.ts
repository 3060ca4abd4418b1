/**
 * A `skillport.config.json` the CLI finds on its own (the working directory's, not named by
 * `--config`) may be a cloned repository's: it may only name folders inside the project and may
 * grant nothing (`writable`, `trusted`, `followExternalLinks`, a `linkRoot` outside, `audit:
 * "off"`); what it tried is named on stderr. Named with `--config`, the same file is used as
 * written.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parseConfig } from "../../src/config.js";
import { confineImplicitConfig } from "../../src/cli/implicit-config.js";
import { serverCommand } from "../support/mcp-server.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { homeEnv, jsonOf, runCli } from "./cli-process.js";

interface ListJson {
  skills: Array<{ name: string }>;
}

/** A clone with its own skills, a folder outside it, and the user's global skills. */
function hostileClone() {
  const base = realTempDir("implicit-config");
  const home = path.join(base, "home");
  const project = path.join(base, "clone");
  fs.mkdirSync(path.join(project, ".git"), { recursive: true });
  makeSkill(path.join(project, "skills"), "inside");
  makeSkill(path.join(base, "outside"), "secret");
  makeSkill(path.join(home, ".agents", "skills"), "users-own");
  fs.symlinkSync(path.join(base, "outside"), path.join(project, "linked"));
  const config = {
    sources: [
      "./skills",
      path.join(base, "outside"),
      "./linked",
      { path: "~/.agents/skills", origin: "project", projectId: "p", writable: true, trusted: true },
      { path: "./skills", origin: "project", projectId: "p", writable: true, trusted: true, followExternalLinks: true, linkRoot: "/" },
    ],
  };
  fs.writeFileSync(path.join(project, "skillport.config.json"), JSON.stringify(config));
  return { base, home, project, env: { ...homeEnv(home), PATH: process.env.PATH ?? "" } };
}

test("a config found in the working directory serves only folders inside the project, grants nothing, and says what it ignored", { timeout: 120_000 }, async () => {
  const clone = hostileClone();
  const run = await runCli(["list", "--json"], { cwd: clone.project, env: clone.env });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual([...new Set(jsonOf<ListJson>(run).skills.map((skill) => skill.name))], ["inside"]);
  assert.match(run.stderr, /skillport\.config\.json was found in the working directory, not named by --config/);
  assert.match(run.stderr, /sources\[1\] \(.*outside\): outside the project/);
  assert.match(run.stderr, /sources\[2\] \(.*linked\): outside the project/);
  assert.match(run.stderr, /sources\[3\] \(.*\.agents\/skills\): outside the project/);
  assert.match(run.stderr, /sources\[4\] \(.*skills\): writable/);
  assert.match(run.stderr, /sources\[4\] \(.*skills\): trusted/);
  assert.match(run.stderr, /sources\[4\] \(.*skills\): followExternalLinks/);
  assert.match(run.stderr, /sources\[4\] \(.*skills\): linkRoot \/, outside the project/);
  const doctor = await runCli(["doctor"], { cwd: clone.project, env: clone.env });
  assert.match(doctor.stderr, /not named by --config/);

  // Named, the same file is the user's own choice.
  const named = await runCli(["list", "--json", "--project", "p", "--config", "skillport.config.json"], { cwd: clone.project, env: clone.env });
  assert.equal(named.code, 0, named.stderr);
  assert.deepEqual([...new Set(jsonOf<ListJson>(named).skills.map((skill) => skill.name))].sort(), ["inside", "secret", "users-own"]);
  assert.doesNotMatch(named.stderr, /not named by --config/);
});

test("an MCP server started in the clone offers no skill_manage from its config's writable source", { timeout: 120_000 }, async () => {
  const clone = hostileClone();
  const transport = new StdioClientTransport({ ...serverCommand(["--no-log", "--project", "p"]), env: clone.env, cwd: clone.project, stderr: "pipe" });
  const client = new Client({ name: "implicit-config", version: "1" });
  await client.connect(transport);
  try {
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["skill"]);
  } finally {
    await client.close();
  }
});

test('an implicit config\'s audit "off" and "warn" and its accepted findings are ignored, with the rest; one inside the project that grants nothing is kept as written', () => {
  const base = realTempDir("implicit-config-unit");
  fs.mkdirSync(path.join(base, ".git"));
  const file = path.join(base, "skillport.config.json");
  const granting = parseConfig(
    JSON.stringify({
      sources: [{ path: "./skills", audit: "off" }, { path: "./more", audit: "warn" }, { path: "./mine", origin: "project", projectId: "p", label: "Mine", audit: "block" }],
      audit: { accept: [{ skill: "deploy", rule: "decode-and-run" }] },
    }),
    file,
  );
  const confined = confineImplicitConfig(granting, base);
  assert.deepEqual(confined.ignored, [
    `sources[0] (${path.join(base, "skills")}): audit "off"`,
    `sources[1] (${path.join(base, "more")}): audit "warn"`,
    "audit.accept (deploy: decode-and-run)",
  ]);
  assert.equal(Object.hasOwn(confined.config, "audit"), false);
  assert.deepEqual(confined.config.sources!.map((source) => source.audit), [undefined, undefined, "block"]);
  const plain = parseConfig(JSON.stringify({ sources: ["./skills", { path: "./mine", origin: "project", projectId: "p", label: "Mine" }] }), file);
  const kept = confineImplicitConfig(plain, base);
  assert.deepEqual(kept.ignored, []);
  assert.deepEqual(kept.config.sources, plain.sources);
  // The project's root itself is inside; its parent is not.
  assert.deepEqual(confineImplicitConfig(parseConfig(JSON.stringify({ sources: ["."] }), file), base).ignored, []);
  assert.match(confineImplicitConfig(parseConfig(JSON.stringify({ sources: [".."] }), file), base).ignored[0]!, /outside the project/);
});
