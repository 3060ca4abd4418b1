/**
 * Turns one benchmark run into `docs/BENCHMARKS.md`: the verdict on each target, one cold-load
 * table per tree size (floor, floor + YAML, skillport, peers side by side), skillport's
 * operations across sizes, and what every row measures. Everything printed is from this run.
 */
import type { LoaderOutcome } from "./loader-child.js";
import type { FreshProcessOutcome, PairedSample } from "./fresh-process.js";
import type { BenchShape } from "./bench-tree.js";
import { mcpHttpCostTargetRows, renderMcpHttpCostSection, type McpHttpCostOutcome } from "./mcp-http-cost.js";
import type { McpRoundTrips } from "./mcp-roundtrip.js";
import { summarise, type Summary } from "./measure.js";
import type { OperationId, OperationsOutcome } from "./skillport-ops.js";

export interface SizeResult {
  count: number;
  /** Absent in older results: the simple tree. */
  shape?: BenchShape;
  shapeShares?: Record<string, number> | null;
  fresh?: FreshProcessOutcome | { error: string };
  /** Lines from further bench modules (run.ts `EXTRA_MODULES`). */
  extra?: Array<{ id: string; title: string; lines: string[]; error?: string }>;
  groups: number;
  skillFileBytes: number;
  loaders: LoaderOutcome[];
  /** Loaders that never produced an outcome (crashed, timed out), with the reason. */
  failures: Array<{ id: string; reason: string }>;
  ops: OperationsOutcome;
  mcp: McpRoundTrips | { error: string };
}

export interface BenchRun {
  date: string;
  node: string;
  platform: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  runs: number;
  /** Processes per loader for trees under 10,000 skills (one from there); absent in older results. */
  processes?: number;
  samples: number;
  freshRuns?: number;
  durationSeconds: number;
  /** Why the peers could not be measured at all, when they could not. */
  peersProblem: string | null;
  results: SizeResult[];
  /** The HTTP server against a minimal SDK server, once per run (absent in older results). */
  httpCost?: McpHttpCostOutcome | { error: string };
}

const MB = 1024 * 1024;

export function ms(value: number): string {
  if (!Number.isFinite(value)) return "—";
  if (value < 1) return value.toFixed(3);
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

export function thousands(n: number): string {
  return n.toLocaleString("en-US");
}

function spread(s: Summary): string {
  return `${ms(s.median)} (${ms(s.min)}–${ms(s.max)})`;
}

function ratio(value: number, floor: number): string {
  return Number.isFinite(value) && floor > 0 ? `${(value / floor).toFixed(2)}×` : "—";
}

function processesLine(run: BenchRun): string {
  const n = run.processes ?? 1;
  if (n <= 1) return "one process per loader";
  return `${n} processes per loader for trees under 10,000 skills, taken round by round with their loads pooled (PERFORMANCE.md's protocol), and one at 10,000, where the slowest peers take seconds per load`;
}

function loadSummary(loader: LoaderOutcome): Summary {
  return summarise(loader.runs.map((r) => r.ms));
}

/**
 * The median, over the loader's timed loads, of each load divided by the floor read in its own
 * process just before it (NaN for results without a floor per load). Loaders run in separate
 * processes, minutes apart on a shared machine whose speed drifts by tens of percent; pairing
 * each load with a floor read at the same moment keeps that drift out of the ratio. The ratio of
 * the two medians would not: pooled over several processes, the loads' median and the floors'
 * median can come from processes that ran at different speeds.
 */
function pairedRatio(loader: LoaderOutcome): number {
  // The first floor pairs with the warm-up load; the rest with the timed loads, in order.
  const floors = loader.pairedFloorMs ?? [];
  if (floors.length !== loader.runs.length + 1) return Number.NaN;
  const ratios = loader.runs.map((run, i) => run.ms / floors[i + 1]!).filter((ratio) => Number.isFinite(ratio));
  return ratios.length > 0 ? summarise(ratios).median : Number.NaN;
}

/** The first load of a process over the floor read just before it; the median over pooled processes. */
function pairedFirstRatio(loader: LoaderOutcome): number {
  if (loader.firstLoads && loader.firstLoads.length > 0) return summarise(loader.firstLoads.map((f) => f.ms / f.floorMs)).median;
  const floor = loader.pairedFloorMs?.[0];
  return loader.first && floor ? loader.first.ms / floor : Number.NaN;
}

/** The first load in a fresh process, ms; the median over pooled processes. */
function firstLoadMs(loader: LoaderOutcome): number | null {
  if (loader.firstLoads && loader.firstLoads.length > 0) return summarise(loader.firstLoads.map((f) => f.ms)).median;
  return loader.first ? loader.first.ms : null;
}

function floorOf(result: SizeResult): number {
  const floor = result.loaders.find((l) => l.id === "floor");
  return floor && !floor.skipped ? loadSummary(floor).median : Number.NaN;
}

/** The parse floor's median (list, read, js-yaml; see loaders.ts), or NaN where it did not run. */
function parseFloorOf(result: SizeResult): number {
  const floor = result.loaders.find((l) => l.id === "parse-floor");
  return floor && !floor.skipped ? loadSummary(floor).median : Number.NaN;
}

function opSummary(result: SizeResult, id: OperationId): Summary | null {
  const sample = result.ops[id];
  return sample ? summarise(sample.ms) : null;
}

function mcpSummary(result: SizeResult, key: "activate" | "read"): Summary | null {
  return "error" in result.mcp ? null : summarise(result.mcp[key]);
}

function verdict(ok: boolean): string {
  return ok ? "met" : "**missed**";
}

function sizeLabel(result: SizeResult): string {
  return `${thousands(result.count)} ${result.shape ?? "simple"}`;
}

/** Median over runs of each run over the floor taken next to it. */
function pairedSampleRatio(sample: PairedSample): number {
  const ratios = sample.ms.map((value, i) => value / sample.floorMs[i]!).filter((r) => Number.isFinite(r));
  return ratios.length > 0 ? summarise(ratios).median : Number.NaN;
}

function freshOf(result: SizeResult): FreshProcessOutcome | null {
  return result.fresh && !("error" in result.fresh) ? result.fresh : null;
}

const SHAPE_TITLES: Record<BenchShape, string> = {
  simple: "simple generated tree",
  real: "real-shaped tree",
  corpus: "corpus of real skills (`--corpus`)",
};

/** A peer's id, with how many descriptions it got right when that is not all of them. */
function peerWithAccuracy(result: SizeResult): (loader: LoaderOutcome) => string {
  return (loader) =>
    loader.correct !== null && loader.correct < result.count
      ? `${loader.id} (which gets ${thousands(loader.correct)} of ${thousands(result.count)} descriptions right)`
      : loader.id;
}

function targetRows(run: BenchRun): string[] {
  const rows: string[] = [];
  const measured = run.results.filter((r) => r.loaders.some((l) => l.id === "skillport" && !l.skipped));
  const skillportOf = (r: SizeResult) => r.loaders.find((l) => l.id === "skillport")!;

  const ratios = measured.map((r) => ({ r, value: pairedRatio(skillportOf(r)), first: pairedFirstRatio(skillportOf(r)) }));
  rows.push(
    `| cold load within 2× the floor | ${ratios
      .map(({ r, value, first }) => `${sizeLabel(r)}: ${value.toFixed(2)}× (first load in a fresh process: ${first.toFixed(1)}×)`)
      .join("; ")} | ${verdict(ratios.every((x) => x.value <= 2))} |`,
  );

  // Compared as ratios to each one's own paired floor, for the same reason as above.
  const behind = measured.map((r) => {
    const ours = pairedRatio(skillportOf(r));
    const faster = r.loaders.filter((l) => l.kind === "peer" && !l.skipped && pairedRatio(l) <= ours);
    return { r, faster };
  });
  const peersRan = measured.some((r) => r.loaders.some((l) => l.kind === "peer" && !l.skipped));
  rows.push(
    `| cold load ahead of every peer | ${
      peersRan
        ? behind.map(({ r, faster }) => `${sizeLabel(r)}: ${faster.length === 0 ? "ahead of all" : `behind ${faster.map(peerWithAccuracy(r)).join(", ")}`}`).join("; ")
        : "no peer could run"
    } | ${peersRan ? verdict(behind.every((b) => b.faster.length === 0)) : "not measured"} |`,
  );

  for (const [id, label] of [
    ["activate", "activation call under 1 ms median (in-process)"],
    ["read", "file-read call under 1 ms median (in-process)"],
  ] as const) {
    const values = run.results.map((r) => ({ r, s: opSummary(r, id) })).filter((x) => x.s !== null);
    rows.push(
      `| ${label} | ${values.map(({ r, s }) => `${sizeLabel(r)}: ${ms(s!.median)} ms`).join("; ")} | ${
        values.length ? verdict(values.every(({ s }) => s!.median < 1)) : "not measured"
      } |`,
    );
  }

  const trips = run.results.flatMap((r) =>
    (["activate", "read"] as const).map((key) => ({ r, key, s: mcpSummary(r, key) })).filter((x) => x.s !== null),
  );
  rows.push(
    `| MCP tools/call round trip under 5 ms median (stdio) | ${trips.map(({ r, key, s }) => `${sizeLabel(r)} ${key}: ${ms(s!.median)} ms`).join("; ")} | ${
      trips.length ? verdict(trips.every(({ s }) => s!.median < 5)) : "not measured"
    } |`,
  );

  const largest = measured.at(-1);
  if (largest) {
    const delays = summarise(skillportOf(largest).runs.map((r) => r.delayMs));
    rows.push(
      `| no event-loop stall over 10 ms during a cold load (SPEC §2), ${sizeLabel(largest)} skills | largest delay per run: median ${ms(delays.median)} ms, worst ${ms(delays.max)} ms | ${verdict(delays.max <= 10)} |`,
    );
    const ours = skillportOf(largest);
    const perThousand = largest.count / 1000;
    rows.push(
      `| memory per 1,000 skills stated | ${sizeLabel(largest)} skills: retained heap ${
        ours.retainedHeapBytes === null ? "—" : `${(ours.retainedHeapBytes / MB / perThousand).toFixed(2)} MB`
      } per 1,000; peak RSS ${(ours.peakRssBytes / MB).toFixed(0)} MB, of which ${((ours.peakRssBytes - ours.rssBeforeBytes) / MB / perThousand).toFixed(1)} MB per 1,000 above the process before loading | stated |`,
    );
  }
  rows.push(...freshTargetRows(run));
  if (run.httpCost) rows.push(...mcpHttpCostTargetRows(run.httpCost));
  return rows;
}

/** The fresh-process targets: real-shaped loads, whole-process `list --json`, MCP start. */
function freshTargetRows(run: BenchRun): string[] {
  const rows: string[] = [];
  const real = run.results.filter((r) => r.shape === "real" && r.loaders.some((l) => l.id === "skillport" && !l.skipped));
  const real10k = real.find((r) => r.count === 10_000);
  if (real10k) {
    const ours = real10k.loaders.find((l) => l.id === "skillport")!;
    const same = pairedRatio(ours);
    const first = pairedFirstRatio(ours);
    rows.push(`| real-shaped tree, 10,000 skills, same process ≤ 2.0× the floor | ${same.toFixed(2)}× | ${verdict(same <= 2)} |`);
    rows.push(`| real-shaped tree, 10,000 skills, first load in a fresh process ≤ 2.5× | ${first.toFixed(2)}× | ${verdict(first <= 2.5)} |`);
  }
  for (const [count, limit] of [[10_000, 1.8], [1000, 1.5]] as const) {
    const results = run.results.filter((r) => r.count === count && freshOf(r));
    if (results.length === 0) continue;
    const values = results.map((r) => ({ r, value: pairedSampleRatio(freshOf(r)!.list) }));
    rows.push(
      `| whole-process \`list --json\` at ${thousands(count)} ≤ ${limit}× a floor script that walks and reads every SKILL.md | ${values.map(({ r, value }) => `${sizeLabel(r)}: ${value.toFixed(2)}×`).join("; ")} | ${verdict(values.every((v) => v.value <= limit))} |`,
    );
  }
  // The targets of "load only what a command needs, parse once", at every size run.
  for (const r of run.results) {
    const ours = r.loaders.find((l) => l.id === "skillport" && !l.skipped);
    const parseFloor = parseFloorOf(r);
    if (r.shape === "real" && ours && Number.isFinite(parseFloor)) {
      const value = loadSummary(ours).median / parseFloor;
      rows.push(`| ${sizeLabel(r)}: same process ≤ 1.0× the parse floor (list, read, js-yaml) | ${value.toFixed(2)}× | ${verdict(value <= 1)} |`);
    }
    if ((r.shape ?? "simple") === "simple" && ours) {
      const value = pairedRatio(ours);
      rows.push(`| ${sizeLabel(r)}: same process ≤ 1.3× the read floor | ${value.toFixed(2)}× | ${verdict(value <= 1.3)} |`);
    }
    const fresh = freshOf(r);
    if (fresh?.listParse) {
      const value = pairedSampleRatio(fresh.listParse);
      rows.push(`| ${sizeLabel(r)}: fresh \`list --json\` ≤ 1.5× a fresh \`node\` script doing the parse floor | ${value.toFixed(2)}× | ${verdict(value <= 1.5)} |`);
    }
    if (fresh) {
      const value = pairedSampleRatio(fresh.mcp);
      rows.push(`| ${sizeLabel(r)}: MCP spawn → first \`tools/list\` ≤ 1.5× the minimal SDK server | ${value.toFixed(2)}× | ${verdict(value <= 1.5)} |`);
    }
    if (fresh?.listWarmCache) {
      const value = pairedSampleRatio(fresh.listWarmCache);
      rows.push(`| ${sizeLabel(r)}, parse cache warm: fresh \`list --json\` ≤ 1.5× a fresh \`node\` script doing the parse floor | ${value.toFixed(2)}× | ${verdict(value <= 1.5)} |`);
    }
    if (fresh?.mcpWarmCache) {
      const value = pairedSampleRatio(fresh.mcpWarmCache);
      rows.push(`| ${sizeLabel(r)}, parse cache warm: MCP spawn → first \`tools/list\` ≤ 1.5× the minimal SDK server | ${value.toFixed(2)}× | ${verdict(value <= 1.5)} |`);
    }
  }
  const mcp = run.results.filter((r) => r.count === 10_000 && freshOf(r));
  if (mcp.length > 0) {
    const values = mcp.map((r) => ({ r, value: pairedSampleRatio(freshOf(r)!.mcp) }));
    rows.push(
      `| MCP spawn → first \`tools/list\` at 10,000 ≤ 2× a minimal SDK server reading the same files | ${values.map(({ r, value }) => `${sizeLabel(r)}: ${value.toFixed(2)}×`).join("; ")} | ${verdict(values.every((v) => v.value <= 2))} |`,
    );
  }
  return rows;
}

function freshTable(run: BenchRun): string[] {
  const lines = [
    "| tree | `list --json` fresh: ms (floor ms) · ratio | against the parse-floor script: ms (floor ms) · ratio | warm, in a running process: ms (floor ms) · ratio | MCP spawn → first `tools/list`: ms (floor ms) · ratio | warm: another `tools/list` ms (floor ms) · ratio |",
    "|---|---|---|---|---|---|",
  ];
  const cell = (sample: PairedSample) =>
    `${ms(summarise(sample.ms).median)} (${ms(summarise(sample.floorMs).median)}) · ${pairedSampleRatio(sample).toFixed(2)}×`;
  for (const r of run.results) {
    const fresh = freshOf(r);
    if (!fresh) {
      lines.push(`| ${sizeLabel(r)} | failed: ${r.fresh && "error" in r.fresh ? r.fresh.error : "not run"} | | | | |`);
      continue;
    }
    lines.push(`| ${sizeLabel(r)} | ${cell(fresh.list)} | ${fresh.listParse ? cell(fresh.listParse) : "—"} | ${cell(fresh.listWarm)} | ${cell(fresh.mcp)} | ${cell(fresh.mcpWarm)} |`);
  }
  const cached = run.results.filter((r) => freshOf(r)?.listWarmCache);
  if (cached.length > 0) {
    lines.push(
      "",
      "With the parse cache (`src/registry/parse-cache.ts`; the rows above run with it off): each against the parse-floor script (`list`) or the minimal SDK server (MCP) spawned next to it.",
      "",
      "| tree | `list --json`, empty cache (parses, writes it): ms (floor ms) · ratio | `list --json`, warm cache: ms (floor ms) · ratio | MCP spawn → first `tools/list`, warm cache: ms (floor ms) · ratio |",
      "|---|---|---|---|",
    );
    for (const r of cached) {
      const fresh = freshOf(r)!;
      lines.push(`| ${sizeLabel(r)} | ${cell(fresh.listColdCache!)} | ${cell(fresh.listWarmCache!)} | ${cell(fresh.mcpWarmCache!)} |`);
    }
  }
  return lines;
}

function extraSections(run: BenchRun): string[] {
  const lines: string[] = [];
  for (const r of run.results) {
    for (const extra of r.extra ?? []) {
      lines.push(`### ${extra.title}, ${sizeLabel(r)}`, "", ...(extra.error ? [`Failed: ${extra.error}`] : extra.lines), "");
    }
  }
  return lines;
}

/**
 * Retained heap per 1,000 skills. At 100 skills a catalog holds less than the heap moves between
 * two full collections, so a reading can come out below zero: shown as noise, not as a number.
 */
function retainedPerThousand(bytes: number | null, perThousand: number): string {
  if (bytes === null) return "—";
  const value = bytes / MB / perThousand;
  return value < 0.05 ? "≈ 0 (below GC noise)" : value.toFixed(2);
}

function loaderTable(result: SizeResult): string[] {
  const floor = floorOf(result);
  const perThousand = result.count / 1000;
  const lines = [
    `### ${thousands(result.count)} skills, ${SHAPE_TITLES[result.shape ?? "simple"]} (${result.groups} source${result.groups === 1 ? "" : "s"}, ${(result.skillFileBytes / 1e6).toFixed(1)} MB of SKILL.md)`,
    "",
    ...(result.shapeShares
      ? [
          `Share of files with each frontmatter shape: ${Object.entries(result.shapeShares)
            .map(([shape, share]) => `${shape} ${(share * 100).toFixed(0)}%`)
            .join(", ")}.`,
          "",
        ]
      : []),
    "| loader | median ms (min–max) | × floor | × parse floor | × floor, same process | first load in a fresh process ms | skills found | right descriptions | largest event-loop delay ms, median run (worst) | peak RSS MB | retained heap MB per 1,000 skills |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  const parseFloor = parseFloorOf(result);
  for (const loader of result.loaders) {
    if (loader.skipped) {
      lines.push(`| ${loader.label} | could not run: ${loader.skipped} | | | | | | | | | |`);
      continue;
    }
    const s = loadSummary(loader);
    const delays = summarise(loader.runs.map((r) => r.delayMs));
    lines.push(
      [
        "",
        loader.label,
        spread(s),
        ratio(s.median, floor),
        Number.isFinite(parseFloor) ? ratio(s.median, parseFloor) : "—",
        Number.isFinite(pairedRatio(loader)) ? `${pairedRatio(loader).toFixed(2)}×` : "—",
        firstLoadMs(loader) !== null ? ms(firstLoadMs(loader)!) : "—",
        loader.found === result.count ? thousands(loader.found) : `**${thousands(loader.found)}**`,
        loader.correct === null ? "—" : loader.correct === result.count ? thousands(loader.correct) : `**${thousands(loader.correct)}**`,
        `${ms(delays.median)} (${ms(delays.max)})`,
        (loader.peakRssBytes / MB).toFixed(0),
        retainedPerThousand(loader.retainedHeapBytes, perThousand),
        "",
      ].join(" | ").trim(),
    );
  }
  for (const failure of result.failures) lines.push(`| ${failure.id} | failed: ${failure.reason} | | | | | | | | |`);
  return lines;
}

const OPERATION_ROWS: Array<{ id: OperationId; label: string; wholeTree: boolean }> = [
  { id: "rescan", label: "unchanged rescan (`runtime.refresh()`)", wholeTree: true },
  { id: "rescan-edit", label: "rescan after one SKILL.md edit", wholeTree: true },
  { id: "list", label: "list call `{}`", wholeTree: true },
  { id: "activate", label: "activation call `{name}`", wholeTree: false },
  { id: "read", label: "file-read call `{name, file_path}`", wholeTree: false },
  { id: "catalog", label: "catalog rendering (XML, whole catalog)", wholeTree: true },
];

function operationsTable(run: BenchRun): string[] {
  const header = `| operation | ${run.results.map((r) => `${sizeLabel(r)}`).join(" | ")} |`;
  const lines = [header, `|---|${run.results.map(() => "---").join("|")}|`];
  for (const row of OPERATION_ROWS) {
    const cells = run.results.map((r) => {
      const s = opSummary(r, row.id);
      if (!s) return r.ops.error ? "failed" : "—";
      return row.wholeTree ? `${spread(s)} · ${ratio(s.median, floorOf(r))} floor` : spread(s);
    });
    lines.push(`| ${row.label} | ${cells.join(" | ")} |`);
  }
  for (const [key, label] of [
    ["activate", "MCP tools/call round trip, activation (stdio)"],
    ["read", "MCP tools/call round trip, file read (stdio)"],
  ] as const) {
    lines.push(`| ${label} | ${run.results.map((r) => (mcpSummary(r, key) ? spread(mcpSummary(r, key)!) : "failed")).join(" | ")} |`);
  }
  lines.push(`| MCP server start: spawn to tool list read (once) | ${run.results.map((r) => ("error" in r.mcp ? "failed" : ms(r.mcp.startMs))).join(" | ")} |`);
  return lines;
}

function problems(run: BenchRun): string[] {
  const lines: string[] = [];
  for (const r of run.results) {
    if (r.ops.error) lines.push(`- ${thousands(r.count)} skills, skillport operations: ${r.ops.error}`);
    if ("error" in r.mcp) lines.push(`- ${thousands(r.count)} skills, MCP round trip: ${r.mcp.error}`);
    for (const f of r.failures) lines.push(`- ${thousands(r.count)} skills, ${f.id}: ${f.reason}`);
  }
  return lines;
}

function skippedPeers(run: BenchRun): string[] {
  const reasons = new Map<string, string>();
  for (const r of run.results) for (const l of r.loaders) if (l.skipped) reasons.set(l.label, l.skipped);
  return [...reasons].map(([label, reason]) => `- ${label}: ${reason}`);
}

export function renderReport(run: BenchRun): string {
  const sizes = run.results.map((r) => thousands(r.count)).join(", ");
  const skipped = skippedPeers(run);
  const trouble = problems(run);
  return [
    "# Benchmarks",
    "",
    `Generated by \`npm run bench\` on ${run.date}; every number below comes from that one run.`,
    "",
    `- Machine: ${run.cpu}, ${run.cores} cores, ${run.memoryGiB} GiB memory, ${run.platform} (shared, so absolute times drift; compare ratios within the run)`,
    "- skillport is measured as built (`npm run build`, which `npm run bench` runs first), imported by plain Node code, as a user's program imports it; the harness itself runs under tsx.",
    `- Node ${run.node}; trees of ${sizes} skills; ${run.runs} timed loads per loader process after one warm-up, each process running one loader; ${processesLine(run)}; ${run.samples} timed calls per tool-call row; the whole run took ${Math.round(run.durationSeconds)} s`,
    "",
    "## Targets",
    "",
    "| target | measured | verdict |",
    "|---|---|---|",
    ...targetRows(run),
    "",
    "## Cold load of the whole tree, side by side",
    "",
    "Every loader discovers the same generated tree (every group directory in turn) and is timed",
    "to the moment its catalog is ready. × floor is the median divided by the floor row's median",
    "(its own process, earlier in the run). × floor, same process divides each load by the floor read",
    "in the loader's own process just before it and takes the median of those ratios: the loaders run",
    "minutes apart on a shared machine whose speed drifts by tens of percent, and the paired floor",
    "keeps that drift out of the ratio. The targets above use the paired ratio, for peers as for skillport.",
    "",
    ...run.results.flatMap((r) => [...loaderTable(r), ""]),
    "## A fresh process",
    "",
    "What a user waits for when a command or a server starts: the whole process, from spawn to",
    "exit (`list --json`) or to the first `tools/list` answer (the MCP server over stdio), each",
    "against a floor spawned alternately with it in the same run: a plain Node script that walks",
    "each source and reads every SKILL.md and prints JSON (`bench/floor-list.mjs`), and a minimal",
    "MCP SDK server that reads the same files before it answers (`bench/minimal-mcp-server.mjs`).",
    "Ratios are the median of each run over the floor run next to it. Warm: the same `list` again",
    "through the CLI's entry point in a running process (against the floor's work in that",
    "process), and another `tools/list` on the open connection.",
    "",
    ...freshTable(run),
    "",
    ...extraSections(run),
    ...(run.httpCost ? renderMcpHttpCostSection(run.httpCost) : []),
    "## skillport operations",
    "",
    "Median ms (min–max); whole-tree operations also as a ratio to the floor of the same size.",
    "",
    ...operationsTable(run),
    "",
    "## What each row measures",
    "",
    "- **floor**: `readFileSync` of every SKILL.md from a known list; nothing else (no directory walk, no parse). The physical lower bound of loading.",
    "- **parse floor**: list each group, list each skill directory, read SKILL.md as text, js-yaml parse of the frontmatter, single-threaded; no validation. `bench/floor-parse-list.mjs` does the same in a fresh `node` process and prints JSON (the fresh-process table's second column).",
    "- **floor + js-yaml / yaml / skillport's YAML**: the floor plus splitting off the frontmatter and parsing it with the named parser (skillport's: its fast tier, handing what it does not read to `yaml`); no validation, no diagnostics. On the real-shaped tree this is the parser choice the loader's speed rests on.",
    "- **skillport cold load**: `createSkillRuntime({ sources })` on a new runtime: walk every source, read and parse each SKILL.md (safe YAML, validation, diagnostics; on the main thread in time slices, with parse workers joining once the tree is large on a machine of three cores or more), rank by precedence, build the immutable snapshot. Timed until the promise resolves.",
    "- **unchanged rescan**: `runtime.refresh()` with nothing changed on disk: a directory walk plus `stat`s, no file re-read.",
    "- **rescan after one edit**: one SKILL.md gets a new description, then `runtime.refresh()`; the rescan must re-read that file and swap in a new snapshot (checked).",
    "- **list / activation / file-read call**: `session.call(…)` on a real session with its JSONL log on disk, each envelope checked. Activations are of skills not yet active (a fresh `loaded` with the body read from disk); reads fetch `references/guide.md` of skills that have one.",
    "- **catalog rendering**: `renderCatalog(registry.list(), { format: \"xml\" })` over every skill, no budget.",
    "- **MCP round trip**: `node dist/cli/skillport.js mcp --root …` (the built, bundled CLI) started as a child process, driven over stdio by the MCP SDK `Client`; timed from `callTool` to the parsed result. The server writes its session log as it would in use.",
    "- **first load in a fresh process**: the warm-up load, kept out of the median and shown on its own (the median over a loader's processes where several ran): module code not yet optimised and, for skillport on three cores or more, its parse worker threads not yet started. A CLI run or a newly started server pays this once.",
    "- **largest event-loop delay**: the maximum of `monitorEventLoopDelay` (1 ms resolution) while one load runs; the middle run and the worst run are shown. A synchronous loader blocks for its whole load, so its delay is about its load time.",
    "- **peak RSS**: the loader process's `maxRSS` after all its loads (module code included: the peers' frameworks weigh in here).",
    "- **retained heap per 1,000 skills**: heap still used after GC (`--expose-gc`) while one loaded catalog is held, minus the heap before that load, scaled to 1,000 skills.",
    "- **right descriptions**: how many skills' descriptions equal what a full YAML parser reads from the file (the simple tree has plain, folded `>-` and double-quoted descriptions; the real-shaped one every shape PERFORMANCE.md counts, in its shares).",
    "",
    "## Peers",
    "",
    "The peers are installed in their own package, `bench/peers/` (exact versions in its",
    "`package.json` and lockfile), so the project's install and CI never pull them; `npm run bench`",
    "runs `npm ci --prefix bench/peers` when they are missing. How each one is driven:",
    "",
    "- `openskills` ships only a bundled CLI; its `findAllSkills` is not exported and looks in fixed directories. The benchmark runs the bundle's own discovery section verbatim with the search directories pointed at the tree.",
    "- `skills-ref` (npm) has no discovery function: the benchmark lists each group and calls its `readProperties` on each skill, 64 at a time.",
    "- `deepagents`: `listSkills({ userSkillsDir })` per group.",
    "- `@google/adk`: `loadAllSkillsInDir(group)` per group, with `setLogger(null)` (its default logger prints a warning for every skill without `assets/`). It also reads every resource file eagerly, which is part of what it does.",
    "- `@openai/codex`: its native `codex app-server` is spawned with a temporary `CODEX_HOME` and a dummy API key (offline, no login) and asked `skills/list` over stdio, once with each group as an extra root (`skills/extraRoots/set`) and once with one user root (`$CODEX_HOME/skills`, a link per group), where Codex stops after 2,000 directories per root; see its own section.",
    "- `@mastra/core`: `new Workspace({ skillSource: new LocalSkillSource(…), skills: groups }).skills.list()`. Every 1.x release declares `engines.node >= 22.13`; the workspace skills module loads and runs on Node 20 regardless (npm warns on install), so it is measured.",
    "",
    run.peersProblem ? `**The peers could not be measured in this run:** ${run.peersProblem}` : "",
    skipped.length ? "Peers that could not run in this run, and why:\n" : "Every peer ran in this run.",
    ...skipped,
    ...(trouble.length ? ["", "Problems met in this run:", "", ...trouble] : []),
    "",
    "## Rerun",
    "",
    "```sh",
    "npm run bench                                   # both trees at 1,000 and 10,000; rewrites this file",
    "npm run bench -- --sizes 1000 --runs 3 --no-write   # a quick look, printed only",
    "npm run bench -- --sizes 100,1000 --shapes real     # the real-shaped tree only",
    "npm run bench -- --no-peers                     # skillport and the floors only",
    "npm run bench -- --sizes 3000 --only loaders,fresh --no-write   # some parts only",
    "npm run bench -- --corpus ~/skill-repos --only loaders --no-write   # real skills: one source folder per repository",
    "```",
    "",
    "Options: `--sizes a,b,c`, `--shapes simple,real`, `--runs N` (timed loads per loader process, fewer for a loader whose",
    "first load shows they would take over ~6 s), `--fresh-runs N` (spawns per fresh-process row), `--processes N` (loader",
    "processes pooled for trees under 10,000 skills), `--samples N` (timed calls per tool-call",
    "row), `--no-peers`, `--no-write` (print the tables, leave this file alone), `--only a,b` (run only these parts:",
    "loaders, ops, watch, mcp, fresh, codex, http, store, session-memory), `--corpus DIR` (a tree of real skills instead of the",
    "generated ones: DIR holds source folders, or skill folders; it is copied and never written to; the peers run on it too). Raw",
    "numbers of the last run are kept in `bench/results/latest.json` (not committed).",
    "",
  ]
    .filter((line, i, all) => !(line === "" && all[i - 1] === ""))
    .join("\n");
}
