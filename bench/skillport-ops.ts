/**
 * skillport's operations on a loaded tree, in one process: rescans (unchanged, after one edit),
 * the three tool calls through a real session, and catalog rendering. Every call's envelope is
 * checked, so a broken call is reported instead of being timed as a fast one.
 *
 *   node --import tsx bench/skillport-ops.ts MANIFEST RUNS SAMPLES OUT_JSON
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { readTreeManifest, treeRuntimeOptions } from "./bench-tree.js";
import { runChildMain } from "./child-main.js";
import { timeCalls, timed } from "./measure.js";
import { lib } from "./skillport-build.js";
import type { Envelope } from "../src/tool/envelope.js";

export type OperationId = "rescan" | "rescan-edit" | "list" | "activate" | "read" | "catalog";

export interface OperationSample {
  ms: number[];
  /** Largest event-loop delay per run, for whole-tree operations. */
  delayMs?: number[];
}

export type OperationsOutcome = Partial<Record<OperationId, OperationSample>> & { error?: string };

const WARMUP_CALLS = 10;

function expectStatus(envelope: Envelope, status: string | null, what: string): void {
  const data = envelope.data as { status?: string } | null;
  if (!envelope.ok || (status !== null && data?.status !== status)) {
    throw new Error(`${what} did not succeed: ${JSON.stringify(envelope).slice(0, 300)}`);
  }
}

async function main(): Promise<void> {
  const [manifest, runsArg, samplesArg, out] = process.argv.slice(2);
  if (!manifest || !runsArg || !samplesArg || !out) throw new Error("usage: skillport-ops.ts MANIFEST RUNS SAMPLES OUT_JSON");
  const tree = readTreeManifest(manifest);
  const runs = Number(runsArg);
  const samples = Number(samplesArg);
  const outcome: OperationsOutcome = {};

  const runtime = await lib.createSkillRuntime(treeRuntimeOptions(tree));
  try {
    const wholeTree = async (run: () => Promise<unknown>, count: number): Promise<OperationSample> => {
      const sample: OperationSample = { ms: [], delayMs: [] };
      await run();
      for (let i = 0; i < count; i++) {
        const one = await timed(run);
        sample.ms.push(one.ms);
        sample.delayMs!.push(one.delayMs);
      }
      return sample;
    };

    outcome.rescan = await wholeTree(() => runtime.refresh(), runs);

    // One SKILL.md gets a new description before each timed rescan, which must pick it up.
    const edited = tree.skillFiles[Math.floor(tree.count / 2)]!;
    const original = fs.readFileSync(edited, "utf8");
    let edits = 0;
    outcome["rescan-edit"] = { ms: [], delayMs: [] };
    for (let i = 0; i <= runs; i++) {
      edits++;
      fs.writeFileSync(edited, original.replace(/^description: /m, `description: Edit ${edits}. `));
      const one = await timed(async () => {
        const result = await runtime.refresh();
        if (!result.ok || !result.changed) throw new Error(`rescan after an edit did not swap: ${JSON.stringify(result).slice(0, 200)}`);
      });
      if (i === 0) continue;
      outcome["rescan-edit"].ms.push(one.ms);
      outcome["rescan-edit"].delayMs!.push(one.delayMs);
    }
    fs.writeFileSync(edited, original);
    await runtime.refresh();

    const session = runtime.session({ log: path.join(tree.root, "sessions") });
    const names = tree.skillDirs.map((dir) => path.basename(dir));
    const withReferences = tree.skillDirs.filter((dir) => fs.existsSync(path.join(dir, "references"))).map((dir) => path.basename(dir));
    const listCount = Math.max(runs, 20);

    outcome.list = {
      ms: await timeCalls(listCount, 3, async () => expectStatus(await session.call({}), null, "list")),
    };
    // Each activation is of a skill not yet active, so every timed call returns a fresh `loaded`.
    const activations = Math.min(samples, names.length - WARMUP_CALLS);
    outcome.activate = {
      ms: await timeCalls(activations, WARMUP_CALLS, async (i) => expectStatus(await session.call({ name: names[i]! }), "loaded", "activation")),
    };
    outcome.read = {
      ms: await timeCalls(samples, WARMUP_CALLS, async (i) =>
        expectStatus(
          await session.call({ name: withReferences[i % withReferences.length]!, file_path: "references/guide.md" }),
          "file_loaded",
          "read",
        ),
      ),
    };
    session.close();

    const skills = runtime.registry().list();
    outcome.catalog = {
      ms: await timeCalls(listCount, 3, async () => {
        if (lib.renderCatalog(skills, { format: "xml" }).length === 0) throw new Error("empty catalog");
      }),
    };
  } catch (error) {
    outcome.error = (error as Error).message;
  } finally {
    await runtime.close();
  }
  fs.writeFileSync(out, JSON.stringify(outcome));
}

await runChildMain(main);
