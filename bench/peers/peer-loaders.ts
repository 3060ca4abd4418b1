/**
 * Peer skill loaders, each doing the same discovery over the same tree (every group directory,
 * one after another) through the package's own code. This file sits next to the peers'
 * separate install so its imports resolve there and never from the project's dependencies.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { BenchTree } from "../bench-tree.js";
import type { LoadedCatalog, LoaderDefinition } from "../loaders.js";

const MODULES = path.join(import.meta.dirname, "node_modules");

function versionOf(pkg: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(MODULES, pkg, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "not installed";
  }
}

async function importPeer<T>(specifier: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw new Error(`cannot import ${specifier}: ${(error as Error).message.split("\n")[0]}`);
  }
}

type OpenskillsFindAll = () => Array<{ name: string; description: string }>;

/**
 * openskills ships only a bundled CLI whose `findAllSkills` is not exported and searches fixed
 * directories under the working and home directories. Its discovery section is taken verbatim
 * from the installed bundle and run with the search directories pointed at the tree's groups.
 */
function openskillsFindAll(groups: string[]): OpenskillsFindAll {
  const bundle = fs.readFileSync(path.join(MODULES, "openskills", "dist", "cli.js"), "utf8");
  const start = bundle.indexOf("// src/utils/yaml.ts");
  const end = bundle.indexOf("// src/commands/list.ts", start);
  if (start < 0 || end < start || !bundle.slice(start, end).includes("function findAllSkills()")) {
    throw new Error("the installed openskills bundle no longer has the discovery section this benchmark extracts");
  }
  const factory = new Function(
    "readFileSync",
    "readdirSync",
    "existsSync",
    "statSync",
    "join2",
    "getSearchDirs",
    "process",
    `${bundle.slice(start, end)}\nreturn findAllSkills;`,
  ) as (...deps: unknown[]) => OpenskillsFindAll;
  return factory(fs.readFileSync, fs.readdirSync, fs.existsSync, fs.statSync, path.join, () => groups, process);
}

async function mapLimit<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

function skillDirsOf(group: string): string[] {
  return fs
    .readdirSync(group, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(group, entry.name));
}

function catalog(skills: Array<{ name: string; description: string }>, held: unknown = skills): LoadedCatalog {
  return { count: skills.length, held, descriptions: () => skills.map((s) => [s.name, s.description]) };
}

export const PEER_LOADERS: LoaderDefinition[] = [
  {
    id: "openskills",
    label: `openskills ${versionOf("openskills")}`,
    what: "sync readdir + readFileSync; takes `description:` with a line regex, no YAML parser, no validation",
    kind: "peer",
    async prepare() {
      return async (tree: BenchTree) => catalog(openskillsFindAll(tree.groups)());
    },
  },
  {
    id: "skills-ref",
    label: `skills-ref ${versionOf("skills-ref")} (npm)`,
    what: "readdir, then `readProperties` per skill (fs/promises + js-yaml), 64 at a time",
    kind: "peer",
    async prepare() {
      const ref = await importPeer<{ readProperties(dir: string): Promise<{ name: string; description: string }> }>("skills-ref");
      return async (tree: BenchTree) => {
        const dirs = tree.groups.flatMap(skillDirsOf);
        // A folder it refuses (no SKILL.md, a frontmatter it cannot read: real corpora have both) is a skill it does not load.
        const read = await mapLimit(dirs, 64, (dir) => ref.readProperties(dir).catch(() => null));
        return catalog(read.filter((skill): skill is { name: string; description: string } => skill !== null));
      };
    },
  },
  {
    id: "deepagents",
    label: `deepagents ${versionOf("deepagents")} \`listSkills\``,
    what: "sync readdir + readFileSync + yaml parse + validation per skill",
    kind: "peer",
    async prepare() {
      const deep = await importPeer<{
        listSkills(options: { userSkillsDir?: string }): Array<{ name: string; description: string }>;
      }>("deepagents");
      return async (tree: BenchTree) => catalog(tree.groups.flatMap((group) => deep.listSkills({ userSkillsDir: group })));
    },
  },
  {
    id: "adk",
    label: `@google/adk ${versionOf("@google/adk")} \`loadAllSkillsInDir\``,
    what: "fs/promises walk; parses and validates SKILL.md (js-yaml + zod) and reads every resource file eagerly; logger off",
    kind: "peer",
    async prepare() {
      const adk = await importPeer<{
        loadAllSkillsInDir(dir: string): Promise<Record<string, { frontmatter: { name: string; description: string } }>>;
        setLogger(logger: null): void;
      }>("@google/adk");
      // Its default logger prints a warning per skill without `assets/`; console I/O is not discovery.
      adk.setLogger(null);
      return async (tree: BenchTree) => {
        const skills: Record<string, { frontmatter: { name: string; description: string } }> = {};
        for (const group of tree.groups) Object.assign(skills, await adk.loadAllSkillsInDir(group));
        const list = Object.values(skills).map((s) => s.frontmatter);
        return catalog(list, skills);
      };
    },
  },
  {
    id: "mastra",
    label: `@mastra/core ${versionOf("@mastra/core")} workspace skills`,
    what: "`Workspace` + `LocalSkillSource`, `skills.list()`: fs/promises walk, gray-matter parse, validation",
    kind: "peer",
    async prepare() {
      const mastra = await importPeer<{
        Workspace: new (config: { skillSource: unknown; skills: string[] }) => {
          skills?: { list(): Promise<Array<{ name: string; description: string }>> };
        };
        LocalSkillSource: new (options: { basePath: string }) => unknown;
      }>("@mastra/core/workspace");
      return async (tree: BenchTree) => {
        const workspace = new mastra.Workspace({ skillSource: new mastra.LocalSkillSource({ basePath: tree.root }), skills: tree.groups });
        if (!workspace.skills) throw new Error("Workspace has no skills although skills paths were given");
        return catalog(await workspace.skills.list(), workspace);
      };
    },
  },
];

