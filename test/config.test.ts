import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { ConfigError, findConfigFile, loadConfigFile, parseConfig } from "../src/config.js";
import { tempDir } from "./support/tmp.js";

const HOME = "/home/someone";

function configError(text: string): ConfigError {
  try {
    parseConfig(text, "/etc/skillport/skillport.config.json", HOME);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail("expected a ConfigError");
}

test("sources resolve against the file's directory and ~; a bare string is a global source", () => {
  const config = parseConfig(
    JSON.stringify({
      sources: [
        "skills",
        { path: "~/team-skills", origin: "bundled" },
        { path: "/abs/p", origin: "project", projectId: "web", label: "Web app" },
        { path: "private", origin: "agent", agentId: "coder" },
      ],
      agents: { coder: { allowedSkills: ["a"], excludedSkills: [], allowedTools: ["*"], deniedTools: ["bash"] } },
      projects: { web: { label: "Web", disabledSkills: ["x"], sharedSkills: ["y"], toolWhitelist: ["skill"] } },
    }),
    "/etc/skillport/skillport.config.json",
    HOME,
  );
  assert.deepEqual(config.sources, [
    { path: "/etc/skillport/skills", origin: "global" },
    { path: "/home/someone/team-skills", origin: "bundled" },
    { path: "/abs/p", origin: "project", projectId: "web", label: "Web app" },
    { path: "/etc/skillport/private", origin: "agent", agentId: "coder" },
  ]);
  assert.deepEqual(config.agents.coder, { allowedSkills: ["a"], excludedSkills: [], allowedTools: ["*"], deniedTools: ["bash"] });
  assert.deepEqual(config.projects.web?.sharedSkills, ["y"]);
});

test("a source's walk options are read: maxDirectories, followExternalLinks, and linkRoot resolved like a path", () => {
  const config = parseConfig(
    JSON.stringify({
      sources: [
        { path: "big", maxDirectories: 200000 },
        { path: "repo/.claude/skills", origin: "project", projectId: "web", followExternalLinks: false, linkRoot: "repo" },
        { path: "~/agent-a", origin: "agent", agentId: "a", followExternalLinks: true, linkRoot: "~/checkouts" },
      ],
    }),
    "/etc/skillport/skillport.config.json",
    HOME,
  );
  assert.deepEqual(config.sources, [
    { path: "/etc/skillport/big", origin: "global", maxDirectories: 200000 },
    { path: "/etc/skillport/repo/.claude/skills", origin: "project", projectId: "web", followExternalLinks: false, linkRoot: "/etc/skillport/repo" },
    { path: "/home/someone/agent-a", origin: "agent", agentId: "a", followExternalLinks: true, linkRoot: "/home/someone/checkouts" },
  ]);
  assert.equal(configError('{"sources": [{"path": "x", "maxDirectories": 0}]}').key, "sources[0].maxDirectories");
  assert.equal(configError('{"sources": [{"path": "x", "maxDirectories": 2.5}]}').key, "sources[0].maxDirectories");
  assert.match(configError('{"sources": [{"path": "x", "followExternalLinks": "yes"}]}').message, /sources\[0\]\.followExternalLinks: expected boolean, got string/);
  assert.match(configError('{"sources": [{"path": "x", "followLinks": true}]}').message, /allowed: path, origin, projectId, label, agentId, maxDirectories, followExternalLinks, linkRoot, writable, trusted, optional, audit$/);
});

test("no sources key means the defaults (undefined), and agents/projects default to empty", () => {
  const config = parseConfig("{}", "/x/skillport.config.json", HOME);
  assert.equal(config.sources, undefined);
  assert.deepEqual(config.agents, {});
  assert.deepEqual(config.projects, {});
});

test("a misspelt key is named with its dotted path and the keys allowed there", () => {
  const error = configError('{"agents": {"coder": {"allowedSkill": ["a"]}}}');
  assert.equal(error.file, "/etc/skillport/skillport.config.json");
  assert.equal(error.key, "agents.coder.allowedSkill");
  assert.match(error.message, /^\/etc\/skillport\/skillport\.config\.json: agents\.coder\.allowedSkill: unknown key; allowed: allowedSkills, excludedSkills, allowedTools, deniedTools$/);
  assert.match(configError('{"source": []}').message, /: source: unknown key; allowed: sources, agents, projects, audit$/);
});

test("a wrong type says what was expected and what was found", () => {
  const error = configError('{"agents": {"coder": {"allowedSkills": "pdf"}}}');
  assert.equal(error.key, "agents.coder.allowedSkills");
  assert.match(error.message, /expected array, got string$/);
  assert.match(configError('{"sources": [42]}').message, /sources\[0\]: expected a path string or an object .*got number$/);
  assert.match(configError("[]").message, /expected object, got array$/);
});

test("origins are checked, and project/agent sources need their owner", () => {
  assert.match(configError('{"sources": [{"path": "a", "origin": "team"}]}').message, /sources\[0\]\.origin: must be one of "bundled", "global", "project", "agent"$/);
  assert.equal(configError('{"sources": [{"path": "a", "origin": "project"}]}').key, "sources[0].projectId");
  assert.equal(configError('{"sources": [{"path": "a", "origin": "agent"}]}').key, "sources[0].agentId");
  assert.equal(configError('{"sources": [{"path": ""}]}').key, "sources[0].path");
});

test("broken JSON names the line and column", () => {
  const error = configError('{\n  "sources": ["a",]\n}');
  assert.equal(error.key, null);
  assert.match(error.message, /not valid JSON: .*line 2 column \d+/);
});

test("loadConfigFile reads from disk and says when the file is missing", () => {
  const dir = tempDir("skillport-config-");
  const file = path.join(dir, "skillport.config.json");
  fs.writeFileSync(file, '\uFEFF{"sources": ["./skills"]}');
  assert.deepEqual(loadConfigFile(file, HOME).sources, [{ path: path.join(dir, "skills"), origin: "global" }]);
  assert.throws(() => loadConfigFile(path.join(dir, "nope.json")), /nope\.json: file does not exist$/);
  assert.throws(() => loadConfigFile(dir), /is a directory, not a JSON file$/);
});

test("a key given twice in one object, or __proto__, is refused: either would change the policy without a word", () => {
  const twice = configError('{\n  "agents": {\n    "r": { "allowedSkills": ["alpha"] },\n    "r": {}\n  }\n}');
  assert.match(twice.message, /the key "r" appears twice in one object \(line 4\)/);
  const proto = configError('{ "agents": { "__proto__": { "allowedSkills": ["alpha"] } } }');
  assert.match(proto.message, /the key "__proto__" \(line 1\) is not allowed/);
  // The same name in different objects, and in strings that are values, is fine.
  const fine = parseConfig('{ "agents": { "r": { "allowedSkills": ["r"] } }, "projects": { "r": {} } }', "/x/c.json", HOME);
  assert.deepEqual(Object.keys(fine.agents), ["r"]);
  assert.deepEqual(Object.keys(parseConfig('{ "agents": { "a\\"b": {}, "a\\"c": {} } }', "/x/c.json", HOME).agents), ['a"b', 'a"c']);
});

test("a FIFO where the config file should be is refused at once, never waited on", { skip: process.platform === "win32" }, () => {
  const dir = tempDir("skillport-config-");
  const fifo = path.join(dir, "skillport.config.json");
  const made = spawnSync("mkfifo", [fifo]);
  assert.equal(made.status, 0, String(made.stderr));
  assert.throws(() => loadConfigFile(fifo, HOME), /is not a regular file/);
});

test("findConfigFile: an explicit file wins, else ./skillport.config.json when present, else none", () => {
  const dir = tempDir("skillport-config-");
  assert.equal(findConfigFile(undefined, dir), null);
  assert.equal(findConfigFile("other.json", dir), path.join(dir, "other.json"));
  fs.writeFileSync(path.join(dir, "skillport.config.json"), "{}");
  assert.equal(findConfigFile(undefined, dir), path.join(dir, "skillport.config.json"));
});
