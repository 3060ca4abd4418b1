/**
 * Plugins a source holds (SPEC §10.1): a Claude Code marketplace (`.claude-plugin/marketplace.json`,
 * each plugin's `.claude-plugin/plugin.json`), a Codex marketplace (`.agents/plugins/marketplace.json`,
 * each plugin's `.codex-plugin/plugin.json`), or a lone plugin at the source's root. A plugin
 * names where its skills are: the marketplace entry's `skills` list, else its manifest's
 * `skills` (a path or a list), else the plugin's own `skills/` folder, as both hosts default.
 * These files only group the skills discovery finds: a skill is a plugin's when its folder is
 * one of those paths or lies under one. Nothing a manifest says is run, fetched or trusted
 * beyond that: a path leading outside the source is left out with a note, and a plugin whose
 * source is elsewhere (another repository, a URL) is listed as not in this source.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isInside } from "../package/confined-read.js";

export interface SourcePlugin {
  name: string;
  description: string | null;
  /** Which host's manifest named it. */
  kind: "claude" | "codex";
  /** Folders (relative to the source root, `/`-separated; "" for the root) holding its skills. */
  skillFolders: string[];
  /** Set when the plugin's files are not in this source (its `source` names another repository or a URL). */
  elsewhere?: string;
}

export interface SourcePlugins {
  plugins: SourcePlugin[];
  /** What could not be read, one sentence each. */
  notes: string[];
}

const MAX_MANIFEST_BYTES = 1024 * 1024;

const MARKETPLACES: ReadonlyArray<{ file: string; kind: SourcePlugin["kind"] }> = [
  { file: ".claude-plugin/marketplace.json", kind: "claude" },
  { file: ".agents/plugins/marketplace.json", kind: "codex" },
];

const MANIFESTS: Record<SourcePlugin["kind"], string> = { claude: ".claude-plugin/plugin.json", codex: ".codex-plugin/plugin.json" };

/** The plugins of the source whose real root is `root`. */
export function pluginsOfSource(root: string): SourcePlugins {
  const result: SourcePlugins = { plugins: [], notes: [] };
  const seen = new Set<string>();
  const add = (plugin: SourcePlugin): void => {
    if (seen.has(plugin.name)) {
      result.notes.push(`a second plugin named ${plugin.name} is left out`);
      return;
    }
    seen.add(plugin.name);
    result.plugins.push(plugin);
  };
  for (const { file, kind } of MARKETPLACES) {
    const marketplace = readJson(root, file, result.notes);
    if (marketplace === null) continue;
    if (!Array.isArray(marketplace.plugins)) {
      result.notes.push(`${file} has no "plugins" list`);
      continue;
    }
    for (const entry of marketplace.plugins as unknown[]) {
      if (!isObject(entry) || typeof entry.name !== "string" || entry.name === "") {
        result.notes.push(`${file}: a plugin entry without a name is left out`);
        continue;
      }
      const description = typeof entry.description === "string" ? entry.description : null;
      const local = localSource(entry.source);
      if (local === null) {
        add({ name: entry.name, description, kind, skillFolders: [], elsewhere: describeSource(entry.source) });
        continue;
      }
      const pluginRoot = inside(root, local, `${file}: plugin ${entry.name}`, result.notes);
      if (pluginRoot === null) continue;
      const manifest = readJson(root, joinPath(pluginRoot, MANIFESTS[kind]), result.notes);
      const listed = entry.skills ?? manifest?.skills;
      add({ name: entry.name, description: description ?? (typeof manifest?.description === "string" ? manifest.description : null), kind, skillFolders: skillFoldersOf(root, pluginRoot, listed, `plugin ${entry.name}`, result.notes) });
    }
  }
  if (result.plugins.length === 0) {
    // A lone plugin: the source's root is the plugin.
    for (const kind of ["claude", "codex"] as const) {
      const manifest = readJson(root, MANIFESTS[kind], result.notes);
      if (manifest === null) continue;
      const name = typeof manifest.name === "string" && manifest.name !== "" ? manifest.name : path.basename(root);
      add({ name, description: typeof manifest.description === "string" ? manifest.description : null, kind, skillFolders: skillFoldersOf(root, "", manifest.skills, `plugin ${name}`, result.notes) });
    }
  }
  return result;
}

/** Whether the skill at `skillPath` (relative to the source root) belongs to `plugin`. */
export function inPlugin(plugin: SourcePlugin, skillPath: string): boolean {
  return plugin.skillFolders.some((folder) => folder === "" || skillPath === folder || skillPath.startsWith(`${folder}/`));
}

function skillFoldersOf(root: string, pluginRoot: string, listed: unknown, what: string, notes: string[]): string[] {
  const paths = typeof listed === "string" ? [listed] : Array.isArray(listed) ? listed.filter((item): item is string => typeof item === "string") : ["skills"];
  const folders: string[] = [];
  for (const item of paths) {
    const folder = inside(root, joinPath(pluginRoot, item), what, notes);
    if (folder !== null) folders.push(folder);
  }
  return folders;
}

/** A `source` naming a folder of this source (`"./plugins/x"`, or Codex's `{source: "local", path}`), or null. */
function localSource(source: unknown): string | null {
  if (source === undefined) return "";
  if (typeof source === "string") return /^[a-z][a-z0-9+.-]*:/i.test(source) ? null : source;
  if (isObject(source) && source.source === "local" && typeof source.path === "string") return source.path;
  return null;
}

function describeSource(source: unknown): string {
  if (typeof source === "string") return source;
  if (isObject(source)) return String(source.repo ?? source.url ?? source.source ?? "another source");
  return "another source";
}

function joinPath(base: string, item: string): string {
  const parts = [...base.split("/"), ...item.split("/")].filter((part) => part !== "" && part !== ".");
  return parts.join("/");
}

/** `relative` as a normalized folder inside `root` (`/`-separated, "" for the root), or null with a note when it leads out. */
function inside(root: string, relative: string, what: string, notes: string[]): string | null {
  if (path.isAbsolute(relative) || relative.includes("\\")) {
    notes.push(`${what}: ${JSON.stringify(relative)} is not a path inside the source`);
    return null;
  }
  const resolved = path.resolve(root, ...relative.split("/"));
  if (resolved !== root && !isInside(root, resolved)) {
    notes.push(`${what}: ${JSON.stringify(relative)} leads outside the source`);
    return null;
  }
  return path.relative(root, resolved).split(path.sep).join("/");
}

function readJson(root: string, relative: string, notes: string[]): Record<string, unknown> | null {
  const file = path.join(root, ...relative.split("/"));
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!stat) return null;
  if (!stat.isFile() || stat.size > MAX_MANIFEST_BYTES) {
    notes.push(`${relative} is not a regular file under ${MAX_MANIFEST_BYTES} bytes; it is left out`);
    return null;
  }
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    if (isObject(value)) return value;
    notes.push(`${relative} is not a JSON object; it is left out`);
  } catch (error) {
    notes.push(`${relative} is not JSON (${(error as Error).message}); it is left out`);
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
