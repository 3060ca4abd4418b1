#!/usr/bin/env node
/**
 * A mutation run over one area of the code, with only the tests that cover that area:
 *
 *   npm run mutate -- install
 *   npm run mutate -- http --mutate src/adapters/http/front.ts:40-120 --concurrency 1
 *
 * Stryker has no runner for node:test through tsx, so its `command` runner runs the area's test
 * files as `npm test` would, once per mutant (the active mutant reaches the tests, and the CLI
 * processes they start, through the environment). Without per-test coverage every mutant runs
 * every test file of its area, which is why areas are small and a run can be narrowed with
 * `--mutate` (Stryker's `file:from-to` line ranges) or `--mutator` (a comma-separated list of
 * mutator names to leave out, e.g. `StringLiteral,ObjectLiteral`), and a sample's tests with
 * `--tests` (the files that reach those lines, when the area's whole set is slow). Reports land in
 * reports/mutation/<area>.{html,json}.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Each area: what is mutated, and the test files that exercise it (directly or through the CLI). */
const AREAS = {
  install: {
    mutate: ["src/install/**/*.ts"],
    tests: ["test/install/*.test.ts", "test/cli/install.test.ts", "test/cli/install-confinement.test.ts"],
  },
  manage: {
    mutate: ["src/tool/manage-*.ts"],
    tests: ["test/session/manage.test.ts", "test/session/manage-*.test.ts", "test/tool/manage-arguments.test.ts", "test/adapters/manage-definitions.test.ts"],
  },
  "parse-cache": {
    mutate: ["src/registry/parse-cache.ts"],
    tests: ["test/registry/parse-cache.test.ts", "test/registry/parse-cache-*.test.ts"],
  },
  http: {
    mutate: ["src/adapters/http/**/*.ts"],
    tests: ["test/adapters/http/*.test.ts"],
  },
  audit: {
    mutate: ["src/audit/**/*.ts"],
    tests: ["test/audit/*.test.ts", "test/cli/audit.test.ts"],
  },
  sync: {
    mutate: ["src/cli/commands/sync.ts", "src/cli/agents-md.ts"],
    tests: ["test/cli/sync.test.ts", "test/cli/agents-md*.test.ts"],
  },
};

function usage(message) {
  if (message) console.error(message);
  console.error(`usage: npm run mutate -- <${Object.keys(AREAS).join("|")}> [--mutate FILE[:FROM-TO],…] [--mutator EXCLUDED,…] [--tests FILE,…] [--concurrency N]`);
  process.exit(2);
}

/** The files a pattern names: a literal path, or one `*` within the last segment. */
function expand(pattern) {
  const dir = path.dirname(pattern);
  const base = path.basename(pattern);
  if (!base.includes("*")) return fs.existsSync(path.join(ROOT, pattern)) ? [pattern] : [];
  const [before, after] = base.split("*");
  const entries = fs.existsSync(path.join(ROOT, dir)) ? fs.readdirSync(path.join(ROOT, dir)) : [];
  return entries.filter((name) => name.startsWith(before) && name.endsWith(after) && name.length >= before.length + after.length).sort().map((name) => `${dir}/${name}`);
}

const [area, ...rest] = process.argv.slice(2);
if (!area || !(area in AREAS)) usage(area ? `unknown area ${JSON.stringify(area)}` : undefined);
const options = { concurrency: 2 };
for (let i = 0; i < rest.length; i += 2) {
  const [flag, value] = [rest[i], rest[i + 1]];
  if (value === undefined) usage(`${flag} needs a value`);
  if (flag === "--mutate") options.mutate = value.split(",");
  else if (flag === "--mutator") options.excluded = value.split(",");
  else if (flag === "--concurrency") options.concurrency = Number(value);
  else if (flag === "--tests") options.tests = value.split(",");
  else usage(`unknown option ${flag}`);
}

const { mutate, tests } = AREAS[area];
const files = [...new Set((options.tests ?? tests).flatMap(expand))];
if (files.length === 0) usage(`no test files found for ${area}`);

const config = {
  mutate: options.mutate ?? mutate,
  testRunner: "command",
  commandRunner: { command: `node --import tsx --test --test-timeout=600000 ${files.join(" ")}` },
  // The command runner reports no per-test coverage, so every mutant runs the area's tests.
  coverageAnalysis: "off",
  concurrency: options.concurrency,
  // The first (unmutated) run sets the per-mutant timeout (factor × its time + timeoutMS); a
  // busy machine must not turn a surviving mutant into a "timeout" (counted as killed), so both
  // are generous, and the summary below counts timeouts apart from kills.
  timeoutFactor: 3,
  timeoutMS: 30_000,
  // The unmutated run of a slow area on a busy machine can pass Stryker's default 5 minutes.
  dryRunTimeoutMinutes: 30,
  mutator: { excludedMutations: options.excluded ?? [] },
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${area}.html` },
  jsonReporter: { fileName: `reports/mutation/${area}.json` },
  // Sandboxes are copies of the checkout; node_modules is linked into each (a real folder in a
  // fresh clone). A checkout whose node_modules is itself a link gets no link from Stryker,
  // which looks for real folders only, and resolves through the checkout's own above the
  // sandbox, since the sandboxes live inside it.
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  thresholds: { high: 90, low: 75, break: null },
};

console.error(`mutating ${config.mutate.join(", ")} with ${files.length} test files: ${files.join(" ")}`);
process.chdir(ROOT);
const { Stryker } = await import("@stryker-mutator/core");
const results = await new Stryker(config).runMutationTest();
const count = (statuses) => results.filter((r) => statuses.includes(r.status)).length;
const killed = count(["Killed"]);
const timedOut = count(["Timeout"]);
const survived = count(["Survived", "NoCoverage"]);
// Stryker's score counts a timeout as a kill; both are shown, since a timeout can also be the machine.
const score = killed + timedOut + survived === 0 ? 100 : (100 * (killed + timedOut)) / (killed + timedOut + survived);
console.log(`${area}: ${killed} killed, ${timedOut} timed out, ${survived} survived, ${count(["CompileError", "RuntimeError", "Ignored"])} not run; score ${score.toFixed(1)}%`);
