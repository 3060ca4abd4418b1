/**
 * The whole-tree loaders the benchmark times: the floor (read every SKILL.md and nothing else),
 * the floor plus a YAML parse, and skillport's cold load. Peer loaders live in
 * `peers/peer-loaders.ts`, next to the separate install they import from.
 */
import * as fs from "node:fs";
import jsYaml from "js-yaml";
import { parse as parseYaml } from "yaml";
import { lib } from "./skillport-build.js";
import type { BenchTree } from "./bench-tree.js";

/** What one load produced. */
export interface LoadedCatalog {
  /** Skills found. */
  count: number;
  /** Everything the loader keeps after loading; held while retained heap is measured. */
  held: unknown;
  /** `[name, description]` per skill, to check the answers; null when the loader keeps none. */
  descriptions(): Array<[string, string]> | null;
  /** Releases what the load holds (closes watchers, pools); not part of the timed run. */
  release?(): Promise<void>;
}

export type LoadTree = (tree: BenchTree) => Promise<LoadedCatalog>;

export interface LoaderDefinition {
  id: string;
  /** Row label, with the package version for peers. */
  label: string;
  /** One line: what the loader does per skill. */
  what: string;
  /** Kind of row: the floor rows are the yardstick, `skillport` is ours, peers are the rest. */
  kind: "floor" | "skillport" | "peer";
  /** Imports what the loader needs; throws with a readable reason when it cannot run here. */
  prepare(): Promise<LoadTree>;
}

/** The frontmatter text of a SKILL.md: between the first line and the next `---` line. */
function frontmatterOf(text: string): string {
  const end = text.indexOf("\n---", 3);
  return end < 0 ? "" : text.slice(4, end);
}

function yamlFloor(id: string, label: string, parse: (text: string) => unknown): LoaderDefinition {
  return {
    id,
    label,
    what: "readFileSync each SKILL.md, split the frontmatter, parse it; no validation",
    kind: "floor",
    async prepare() {
      return async (tree) => {
        const parsed: Array<{ name: string; description: string }> = [];
        for (const file of tree.skillFiles) {
          const text = fs.readFileSync(file, "utf8");
          let data: { name: string; description: string };
          try {
            data = parse(frontmatterOf(text)) as { name: string; description: string };
          } catch {
            // A frontmatter the parser refuses (real corpora have some) is a skill it does not load.
            continue;
          }
          if (data === null || typeof data !== "object") continue;
          parsed.push(data);
        }
        return { count: parsed.length, held: parsed, descriptions: () => parsed.map((d) => [d.name, d.description]) };
      };
    },
  };
}

export const OWN_LOADERS: LoaderDefinition[] = [
  {
    id: "floor",
    label: "floor: readFileSync every SKILL.md",
    what: "reads each SKILL.md of a known list into a Buffer and drops it; no walk, no parse",
    kind: "floor",
    async prepare() {
      return async (tree) => {
        let count = 0;
        for (const file of tree.skillFiles) {
          fs.readFileSync(file);
          count++;
        }
        return { count, held: null, descriptions: () => null };
      };
    },
  },
  {
    id: "parse-floor",
    label: "parse floor: list, read, js-yaml",
    what: "lists each group, lists each skill directory, reads SKILL.md as text, js-yaml parse of the frontmatter; single-threaded, no validation",
    kind: "floor",
    async prepare() {
      return async (tree) => {
        const parsed: Array<{ name: string; description: string }> = [];
        for (const group of tree.groups) {
          for (const entry of fs.readdirSync(group, { withFileTypes: true })) {
            if (!entry.isDirectory()) continue;
            const dir = `${group}/${entry.name}`;
            // A folder beside the skills that is not one (real corpora have them) is listed and left.
            if (!fs.readdirSync(dir, { withFileTypes: true }).some((file) => file.name === "SKILL.md")) continue;
            const text = fs.readFileSync(`${dir}/SKILL.md`, "utf8");
            let data: { name: string; description: string };
            try {
              data = jsYaml.load(frontmatterOf(text)) as { name: string; description: string };
            } catch {
              continue;
            }
            if (data === null || typeof data !== "object") continue;
            parsed.push(data);
          }
        }
        return { count: parsed.length, held: parsed, descriptions: () => parsed.map((d) => [d.name, d.description]) };
      };
    },
  },
  yamlFloor("floor-js-yaml", "floor + js-yaml 4.3.2 parse", (text) => jsYaml.load(text)),
  yamlFloor("floor-yaml", "floor + yaml 2.9.1 parse", (text) => parseYaml(text)),
  {
    ...yamlFloor("floor-own-yaml", "floor + skillport's YAML (fast tier, `yaml` for the rest)", () => null),
    async prepare() {
      const { parseYaml: ownParse } = (await import(new URL("../dist/src/package/yaml.js", import.meta.url).href)) as typeof import("../src/package/yaml.js");
      const parse = (text: string) => {
        const result = ownParse(text);
        if (!result.ok) throw new Error(result.message);
        return result.value;
      };
      return yamlFloor("floor-own-yaml", "", parse).prepare();
    },
  },
  {
    id: "skillport",
    label: "**skillport cold load** (`createSkillRuntime`)",
    what: "walks every source, stats, reads and parses each SKILL.md with validation and diagnostics, ranks, builds the snapshot",
    kind: "skillport",
    async prepare() {
      return async (tree) => {
        const runtime = await lib.createSkillRuntime({
          sources: tree.groups.map((group) => ({ path: group, origin: "global" as const })),
          cwd: tree.root,
          home: tree.root,
          env: {},
        });
        const skills = runtime.snapshot().skills;
        return {
          count: skills.length,
          held: runtime,
          descriptions: () => skills.map((s) => [s.name, s.description]),
          release: () => runtime.close(),
        };
      };
    },
  },
];
