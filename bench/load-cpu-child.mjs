// One build's cold load against the read floor, in one process (run with --expose-gc):
//   node --expose-gc bench/load-cpu-child.mjs BUILD_INDEX_JS MANIFEST LOADS
// A warm-up, then LOADS rounds of the floor (readFileSync every SKILL.md) and one
// createSkillRuntime over the tree's groups, each load over the floor read just before it.
// Process CPU counts every thread (parse workers, the thread pool); prints one JSON line.
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";

const [index, manifest, loadsArg] = process.argv.slice(2);
const tree = JSON.parse(fs.readFileSync(manifest, "utf8"));
const lib = await import(index);
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
function floor() {
  const cpu = cpuMs();
  const wall = performance.now();
  for (const file of tree.skillFiles) fs.readFileSync(file);
  return { cpu: cpuMs() - cpu, wall: performance.now() - wall };
}
async function load() {
  const cpu = cpuMs();
  const wall = performance.now();
  const runtime = await lib.createSkillRuntime({ sources: tree.groups.map((group) => ({ path: group, origin: "global" })), cwd: tree.root, home: tree.root, env: {} });
  const result = { cpu: cpuMs() - cpu, wall: performance.now() - wall, found: runtime.snapshot().skills.length };
  await runtime.close();
  return result;
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
floor();
await load();
globalThis.gc?.();
const rounds = [];
for (let i = 0; i < Number(loadsArg); i++) {
  const f = floor();
  rounds.push({ f, l: await load() });
}
process.stdout.write(
  `${JSON.stringify({
    found: rounds[0].l.found,
    cpuRatio: median(rounds.map((r) => r.l.cpu / r.f.cpu)),
    minCpuRatio: Math.min(...rounds.map((r) => r.l.cpu)) / Math.min(...rounds.map((r) => r.f.cpu)),
    wallRatio: median(rounds.map((r) => r.l.wall / r.f.wall)),
    loadCpuMs: median(rounds.map((r) => r.l.cpu)),
  })}\n`,
);
