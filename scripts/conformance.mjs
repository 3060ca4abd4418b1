#!/usr/bin/env node
// `npm run conformance`: the MCP conformance suite's SEP-2640 (Skills Extension) scenarios
// against `skillport mcp --http` serving the example skills and the Anthropic fixture skills.
// The suite needs Node 22, so a Node 22 binary (the npm `node` package) and the suite are
// installed on first use into a cache folder outside the checkout (SKILLPORT_CONFORMANCE_DIR,
// default ~/.cache/skillport-conformance). Exit 0 only when every check passed: none failed,
// none warned, and none skipped except those the suite marks not applicable on the older wire.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const NODE22 = "node@22.23.3";
const SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"];
// Both wires the server speaks: 2026-07-28 (stateless, the suite's default) and the initialize
// handshake of 2025-11-25 (extension scenarios carry no spec date, hence --force there).
const WIRES = [
  ["2026-07-28", []],
  ["2025-11-25", ["--spec-version", "2025-11-25", "--force"]],
];

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cache = process.env.SKILLPORT_CONFORMANCE_DIR ?? path.join(os.homedir(), ".cache", "skillport-conformance");
const roots = [
  ["example skills", path.join(repo, "examples", "skills")],
  ["Anthropic fixture skills", path.join(repo, "test", "fixtures", "anthropics-skills")],
];

function log(line) {
  process.stderr.write(`conformance: ${line}\n`);
}

function ensureSuite() {
  const node = path.join(cache, "node_modules", "node", "bin", "node");
  const cli = path.join(cache, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  if (!fs.existsSync(node) || !fs.existsSync(cli)) {
    log(`installing ${SUITE} and ${NODE22} into ${cache}`);
    fs.mkdirSync(cache, { recursive: true });
    if (!fs.existsSync(path.join(cache, "package.json"))) fs.writeFileSync(path.join(cache, "package.json"), '{ "private": true }\n');
    const installed = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefix", cache, SUITE, NODE22], { stdio: "inherit" });
    if (installed.status !== 0) throw new Error("npm install of the conformance suite failed");
  }
  return { node, cli };
}

async function startServer(root) {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repo, "src", "cli", "main.ts"), "mcp", "--http", "0", "--no-log", "--root", root], {
    cwd: repo,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(`the server exited:\n${stderr}`)));
  });
  return { url, stop: () => child.kill("SIGTERM"), stderr: () => stderr };
}

function runScenario(suite, url, scenario, wireArgs) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "skillport-conformance-"));
  try {
    const args = [suite.cli, "server", "--url", url, "--scenario", scenario, ...wireArgs, "-o", out];
    const run = spawnSync(suite.node, args, { encoding: "utf8" });
    const file = findFile(out, "checks.json");
    if (!file) throw new Error(`${scenario}: no checks.json\n${run.stdout}\n${run.stderr}`);
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

function findFile(dir, name) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(full, name);
      if (found) return found;
    } else if (entry.name === name) return full;
  }
  return null;
}

const suite = ensureSuite();
let failed = 0;
for (const [label, root] of roots) {
  const server = await startServer(root);
  try {
    for (const [wire, wireArgs] of WIRES) for (const scenario of SCENARIOS) {
      const checks = runScenario(suite, server.url, scenario, wireArgs);
      const by = (status) => checks.filter((c) => c.status === status);
      // A skip passes only where the suite itself says the check does not apply to the older
      // wire; on the suite's default wire every check must run and pass, warnings included.
      const excusedSkip = (c) => wire !== "2026-07-28" && /^not applicable on negotiated protocol/.test(c.errorMessage ?? "");
      const bad = [...by("FAILURE"), ...by("WARNING"), ...by("SKIPPED").filter((c) => !excusedSkip(c))];
      failed += bad.length;
      console.log(`${label}, ${wire}: ${scenario}: ${by("SUCCESS").length} passed, ${by("FAILURE").length} failed, ${by("WARNING").length} warnings, ${by("SKIPPED").length} skipped (of ${checks.length})`);
      for (const check of [...bad, ...by("SKIPPED")]) console.log(`  ${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
    }
  } finally {
    server.stop();
  }
}
process.exit(failed === 0 ? 0 : 1);
