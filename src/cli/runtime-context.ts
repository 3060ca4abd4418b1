import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Scope } from "../access/types.js";
import { findConfigFile, loadConfigFile, type SkillportConfig } from "../config.js";
import { defaultSources } from "../registry/sources.js";
import type { SkillSource } from "../registry/types.js";
import { BundleCheckError, openSkillRuntime, type SessionFactory, type SkillRuntime } from "../runtime-core.js";
import type { SessionStore } from "../session/store.js";
import type { CommonOptions } from "./common-options.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_USAGE } from "./exit.js";
import type { CliOutput } from "./output.js";
import { withProgress } from "./progress.js";
import { confineImplicitConfig, implicitConfigWarnings } from "./implicit-config.js";

export interface CliContext {
  runtime: SkillRuntime;
  scope: Scope;
  config: SkillportConfig | null;
  cwd: string;
  /** Every source the runtime scans, defaults included: what "No skills found" names. */
  sources: readonly SkillSource[];
}

/**
 * Reads the config file the options point at (or the default one); its `ConfigError` is reported
 * as a usage error. One found without `--config` is confined (`implicit-config.ts`), and what it
 * may not set is said on stderr.
 */
export function readConfig(options: CommonOptions, cwd: string, out: CliOutput): SkillportConfig | null {
  const file = findConfigFile(options.config, cwd);
  if (!file) return null;
  const config = loadConfigFile(file);
  if (options.config !== undefined) return config;
  const confined = confineImplicitConfig(config, cwd);
  for (const line of implicitConfigWarnings(file, confined.ignored)) out.log(line);
  return confined.config;
}

/**
 * The config file as written, never confined, for a rule that only takes away: a bundle leaves
 * out every agent source the file declares, and an implicit file's agent source outside the
 * project (which serving ignores) still names skills that are private to someone.
 */
export function readConfigAsWritten(options: CommonOptions, cwd: string): SkillportConfig | null {
  const file = findConfigFile(options.config, cwd);
  return file ? loadConfigFile(file) : null;
}

/**
 * The sources a command scans: `--root` directories (all `global`, in the order given) replace
 * everything else; otherwise the config's sources; otherwise the runtime's defaults. A `--root`
 * that does not exist is a usage error, unless the command watches: then it is a warning, and
 * the folder is served once it is created (an editor's MCP config names a workspace's skill
 * folder before the workspace has one).
 */
export function sourcesFor(options: CommonOptions, config: SkillportConfig | null, cwd: string, out: CliOutput, watch = false): SkillSource[] | undefined {
  if (options.root && options.root.length > 0) {
    return options.root.map((root) => ({ path: rootDirectory(root, cwd, out, watch), origin: "global" as const }));
  }
  return config?.sources;
}

function rootDirectory(root: string, cwd: string, out: CliOutput, watch: boolean): string {
  const absolute = path.resolve(cwd, root);
  if (watch && !fs.existsSync(absolute)) {
    out.log(`warning: --root ${root}: directory does not exist (${absolute}); watching for it: skills created there will be served`);
    return absolute;
  }
  return existingDirectory(root, cwd, "--root");
}

function existingDirectory(root: string, cwd: string, option: string): string {
  const absolute = path.resolve(cwd, root);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    throw new CliError(`${option} ${root}: directory does not exist (${absolute})`, EXIT_USAGE);
  }
  if (!stat.isDirectory()) throw new CliError(`${option} ${root}: not a directory (${absolute})`, EXIT_USAGE);
  return absolute;
}

/** What a command opens the runtime with. */
export interface RuntimeNeeds {
  watch?: boolean;
  store?: SessionStore;
  authoring?: string;
  /**
   * The command starts conversations (`runtime.session()`, stored sessions): only then are the
   * session and tool modules loaded. Default false: a command that reads the registry pays for
   * nothing more.
   */
  sessions?: boolean;
}

/** Opens the runtime for one command run; the caller must `close()` it. */
export async function openRuntime(options: CommonOptions, out: CliOutput, { watch = false, store, authoring, sessions = false }: RuntimeNeeds = {}): Promise<CliContext> {
  const cwd = process.cwd();
  const config = readConfig(options, cwd, out);
  if (options.bundle !== undefined) {
    if (authoring !== undefined) throw new CliError("--authoring and --bundle cannot be given together: a bundle is read-only and the one source", EXIT_USAGE);
    return openBundleRuntime(options, options.bundle, config, cwd, out, { watch, sessions, ...(store ? { store } : {}) });
  }
  const scope: Scope = {};
  if (options.agent) scope.agentId = options.agent;
  if (options.project) scope.projectId = options.project;
  const configured = sourcesFor(options, config, cwd, out, watch) ?? defaultSources(cwd, os.homedir());
  const sources = authoring === undefined ? configured : [authoringSource(authoring, cwd, scope), ...configured];
  warnAboutUnknownScope(scope, config, sources, out);
  const runtime = await withProgress(
    out,
    "Scanning skills",
    openSkillRuntime(
      {
        sources,
        agents: config?.agents ?? {},
        projects: config?.projects ?? {},
        ...(config?.audit ? { audit: config.audit } : {}),
        watch,
        cwd,
        parseCache: parseCacheWanted(options),
        ...(store ? { store } : {}),
      },
      await sessionFactory(sessions),
    ),
  );
  return { runtime, scope, config, cwd, sources };
}

/** The session layer's factory, loaded only for a command that starts conversations. */
async function sessionFactory(sessions: boolean): Promise<SessionFactory | null> {
  return sessions ? (await import("../session/session.js")).createSession : null;
}

/**
 * The CLI keeps the parse cache unless told not to: every `list` and every MCP server an agent
 * session starts is a fresh process over the same tree. `--no-parse-cache` or
 * `SKILLPORT_PARSE_CACHE=0` (also `false`, `off`, `no`) turn it off.
 */
function parseCacheWanted(options: CommonOptions): boolean {
  if (options.parseCache === false) return false;
  const env = process.env.SKILLPORT_PARSE_CACHE?.trim().toLowerCase();
  return !(env === "0" || env === "false" || env === "off" || env === "no");
}

/**
 * `--authoring DIR` (SPEC §11): the one folder `skill_manage` writes into, created if missing.
 * Private to the agent named by `--agent` (an agent source), else the project's (`--project`, or
 * the unnamed working-directory project): the scope the server answers for sees what it writes.
 * First in the list, so among sources of its origin it wins a name collision; a new name that
 * would shadow a visible skill is refused anyway. Not trusted: see docs/SECURITY.md.
 */
function authoringSource(dir: string, cwd: string, scope: Scope): SkillSource {
  const absolute = path.resolve(cwd, dir);
  try {
    fs.mkdirSync(absolute, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw new CliError(`--authoring ${dir}: cannot create the folder (${(error as NodeJS.ErrnoException).code ?? String(error)})`, EXIT_USAGE);
  }
  if (!fs.statSync(absolute).isDirectory()) throw new CliError(`--authoring ${dir}: not a directory (${absolute})`, EXIT_USAGE);
  if (scope.agentId !== undefined) return { path: absolute, origin: "agent", agentId: scope.agentId, label: "Authored", writable: true };
  return { path: absolute, origin: "project", ...(scope.projectId !== undefined ? { projectId: scope.projectId } : {}), label: "Authored", writable: true };
}

/** A bundle is the one source: verified before anything is served, so replicas reporting one digest serve the same bytes. */
async function openBundleRuntime(
  options: CommonOptions,
  bundle: string,
  config: SkillportConfig | null,
  cwd: string,
  out: CliOutput,
  { watch, store, sessions }: { watch: boolean; store?: SessionStore; sessions: boolean },
): Promise<CliContext> {
  if (options.root && options.root.length > 0) throw new CliError("--bundle and --root cannot be given together: a bundle is the one source", EXIT_USAGE);
  const dir = existingDirectory(bundle, cwd, "--bundle");
  const scope: Scope = {};
  if (options.agent) scope.agentId = options.agent;
  if (options.project) scope.projectId = options.project;
  let runtime: SkillRuntime;
  try {
    runtime = await withProgress(
      out,
      "Checking the bundle",
      openSkillRuntime({ bundle: dir, agents: config?.agents ?? {}, projects: config?.projects ?? {}, ...(config?.audit ? { audit: config.audit } : {}), watch, cwd, parseCache: parseCacheWanted(options), ...(store ? { store } : {}) }, await sessionFactory(sessions)),
    );
  } catch (error) {
    if (error instanceof BundleCheckError) throw new CliError(error.message, EXIT_FAILURE_FOUND);
    throw error;
  }
  const sources = [{ path: dir, origin: "global" as const }];
  warnAboutUnknownScope(scope, config, sources, out);
  return { runtime, scope, config, cwd, sources };
}

// An id nobody defined is not an error (policies default to "everything"), but it is almost always a typo.
/** True when the command acts as an agent or a project rather than as the unscoped operator. */
export function isScoped(scope: Scope): boolean {
  return scope.agentId !== undefined || scope.projectId !== undefined;
}

function warnAboutUnknownScope(scope: Scope, config: SkillportConfig | null, sources: readonly SkillSource[], out: CliOutput): void {
  // Own keys only: an agent named `constructor` is not defined by Object.prototype.
  if (scope.agentId && !(config && Object.hasOwn(config.agents, scope.agentId)) && !sources.some((s) => s.agentId === scope.agentId)) {
    out.log(`warning: agent '${scope.agentId}' is not defined in ${config ? config.file : "any config file"}; no agent policy applies`);
  }
  if (scope.projectId && !(config && Object.hasOwn(config.projects, scope.projectId)) && !sources.some((s) => s.projectId === scope.projectId)) {
    out.log(`warning: project '${scope.projectId}' is not defined in ${config ? config.file : "any config file"}; it has no skills or policy`);
  }
}

/** Opens the runtime, runs `work`, and always closes the runtime so no watcher or worker keeps the process alive. */
export async function withRuntime<T>(options: CommonOptions, out: CliOutput, work: (context: CliContext) => Promise<T>, needs: RuntimeNeeds = {}): Promise<T> {
  const context = await openRuntime(options, out, needs);
  try {
    return await work(context);
  } finally {
    await context.runtime.close();
  }
}
