/**
 * `list --json` through the CLI's own entry point, again and again in one process, against the
 * floor script's work done in the same process: the warm counterpart of the fresh-process row.
 * Prints `{ ms, floorMs }`.
 *
 *   node --import tsx bench/warm-list.ts RUNS DIR…
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { CliOutput } from "../src/cli/output.js";

const [runsArg, ...groups] = process.argv.slice(2);
const runs = Number(runsArg);
const { runCli } = (await import(new URL("../dist/src/cli/program.js", import.meta.url).href)) as typeof import("../src/cli/program.js");
const { COMMANDS } = (await import(new URL("../dist/src/cli/all-commands.js", import.meta.url).href)) as typeof import("../src/cli/all-commands.js");

let written = 0;
const out: CliOutput = { data: (text) => void (written += text.length), log: () => {}, status: () => {}, interactive: false };
const args = ["list", "--json", ...groups.flatMap((g) => ["--root", g])];

function floor(): void {
  const skills: Array<{ name: string; bytes: number }> = [];
  for (const root of groups) {
    for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      try {
        skills.push({ name: entry.name, bytes: fs.readFileSync(path.join(root, entry.name, "SKILL.md"), "utf8").length });
      } catch {
        // not a skill
      }
    }
  }
  written += JSON.stringify({ count: skills.length, skills }, null, 2).length;
}

const ms: number[] = [];
const floorMs: number[] = [];
floor();
if ((await runCli(args, COMMANDS, out)) !== 0) throw new Error("list failed");
for (let i = 0; i < runs; i++) {
  let start = performance.now();
  floor();
  floorMs.push(performance.now() - start);
  start = performance.now();
  await runCli(args, COMMANDS, out);
  ms.push(performance.now() - start);
}
process.stdout.write(JSON.stringify({ ms, floorMs }));
process.exit(0);
