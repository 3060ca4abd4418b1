/**
 * The library face (SPEC §7): one object that owns the live registry, resolves scoped
 * registries under the configured policies, watches the sources when asked, and opens sessions.
 */
import * as os from "node:os";
import * as path from "node:path";
import { createScopeResolver, type ScopedRegistryView } from "./access/scoped-registry.js";
import { unknownSkillNameWarnings } from "./access/policy-names.js";
import { writableSourcesOf } from "./access/writable-sources.js";
import type { AgentPolicy, ProjectPolicy, Scope } from "./access/types.js";
import { checkRuntimeOptions } from "./option-rules.js";
import type { Diagnostic } from "./package/diagnostic.js";
import { withoutReferenceMarks, withReferenceChecks } from "./package/reference-check.js";
import { defaultParseCacheDir } from "./registry/parse-cache.js";
import { createRegistry, type RefreshOutcome, type RegistryStats } from "./registry/registry.js";
import { defaultSources, sourceRootAllowed } from "./registry/sources.js";
import type { RegistrySnapshot, SkillSource } from "./registry/types.js";
import type { SourceWatcher } from "./registry/watch.js";
import type { Session, SessionHost, SessionOptions } from "./session/session.js";
import type { AuditPolicy } from "./access/audit-verdict.js";
import type { SessionStore } from "./session/store.js";
import type { StoredSession, StoredSessionOptions } from "./session/stored-session.js";

export interface SkillRuntimeOptions {
  /** Default: the §2 default sources for `cwd` and `home`. */
  sources?: SkillSource[];
  agents?: Record<string, AgentPolicy>;
  projects?: Record<string, ProjectPolicy>;
  /** The environment requirement checks and env grants read. Default: `process.env`, copied at each load. */
  env?: Record<string, string>;
  /** Watch the sources and refresh (debounced) when they change. */
  watch?: boolean;
  /** Quiet time after the last filesystem event before a watched refresh runs. Default 200 ms. */
  watchDebounceMs?: number;
  /** Default: `process.cwd()`. */
  cwd?: string;
  /** Default: `os.homedir()`. */
  home?: string;
  /**
   * Where stored sessions live (`createStoredSession`, `openStoredSession`): a `SessionStore`, or
   * a string naming one (`postgres://…`, `memory`, or a directory of JSONL files). A store given
   * as a string is opened here and closed with the runtime; one given as an object is the
   * caller's to close.
   */
  store?: SessionStore | string;
  /**
   * A bundle directory written by `bundle` (`OUT/sha256-<hex>`): verified against its lock
   * before anything is served (a changed byte, mode or file throws `BundleCheckError`), then its
   * `skills/` tree is the one source, origin `global`. Not together with `sources`.
   */
  bundle?: string;
  /**
   * Keep what loading each SKILL.md gave on disk, so the next process re-parses only files that
   * changed (stamped by size, mtime, ctime, inode and device): `true` for
   * `$XDG_CACHE_HOME/skillport` (or `~/.cache/skillport`), or `{ dir }`. Default off for the
   * library; the CLI turns it on. Only the first scan uses it. See docs/SECURITY.md.
   */
  parseCache?: boolean | { dir?: string };
  /**
   * The audit's findings a person has read and trusts (SPEC §12): `{ accept: [{ skill, rule }] }`,
   * by skill name and rule id, exactly. A source's own `audit` setting (`block`, `warn`, `off`)
   * says what the rest of its findings do.
   */
  audit?: AuditPolicy;
}

export interface DiagnosticsOptions {
  /** false: leave out the reference-dialect warnings and skip the strict re-reads they need (default true). */
  referenceDialect?: boolean;
}

export interface SkillRuntime {
  /** Rescans the sources; on failure the last good snapshot keeps serving. */
  refresh(): Promise<RefreshOutcome>;
  /** The scoped registry of `(projectId?, agentId?)`; cached until the next snapshot, its requirement checks redone after every refresh. */
  registry(scope?: Scope): ScopedRegistryView;
  /**
   * Every diagnostic of the current snapshot (invalid skills, warnings, shadowed, loops, bounds),
   * plus unwatchable sources and a failed last refresh. Given a scope, only the snapshot's
   * diagnostics that concern it: another agent's or project's private skills, their paths and
   * their errors stay out of what a person acting as that scope is shown.
   *
   * The warnings that the reference validator would refuse a file's YAML are worked out here,
   * when asked for, by a strict re-read of each SKILL.md that may draw one (loading only marks
   * those); `{ referenceDialect: false }` leaves them out, for a reader that wants only errors.
   */
  diagnostics(scope?: Scope, options?: DiagnosticsOptions): Diagnostic[];
  snapshot(): RegistrySnapshot;
  stats(): RegistryStats;
  /** Called after every swap to a changed snapshot (manual or watched refresh); returns an unsubscribe function. */
  onChange(listener: (snapshot: RegistrySnapshot) => void): () => void;
  /** A conversation over this runtime's live registry. */
  session(options?: SessionOptions): Session;
  /** The store stored sessions live in; null when the runtime was opened without one. */
  readonly store: SessionStore | null;
  /** Starts a conversation in the store (its header is written before this returns). */
  createStoredSession(options?: StoredSessionOptions): Promise<StoredSession>;
  /** Continues a conversation from the store, in this process or any other sharing it. */
  openStoredSession(id: string, options?: StoredSessionOptions): Promise<StoredSession>;
  /**
   * What this runtime serves, for comparing replicas: the bundle's digest (`sha256-<hex>`) when
   * it serves a bundle, else a digest of the loaded skills (`loaded-sha256-<hex>`, see
   * `loadedSkillsDigest`), computed once per snapshot.
   */
  registryDigest(): Promise<string>;
  /** Stops watching and releases everything; the runtime serves its last snapshot afterwards. */
  close(): Promise<void>;
}

/** A bundle that does not match its lock or its name; `problems` lists every difference. */
export class BundleCheckError extends Error {
  constructor(
    readonly bundle: string,
    readonly problems: readonly string[],
  ) {
    super(`bundle ${bundle} does not match its lock: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}`);
    this.name = "BundleCheckError";
  }
}

const DEFAULT_WATCH_DEBOUNCE_MS = 200;

/** Starts a conversation over a runtime's registry: `createSession` of the session layer. */
export type SessionFactory = (host: SessionHost, options?: SessionOptions) => Session;

/**
 * `createSkillRuntime` (src/runtime.ts) without importing the session layer: given no session
 * factory, the runtime never starts a conversation (`session()` throws), so a command that only
 * reads the registry (`list`, `doctor`, `show`) never loads the session, tool and prompt modules,
 * where a fresh `list` loaded all of them. The command line's; not part of the public face.
 */
export async function openSkillRuntime(options: SkillRuntimeOptions, createSession: SessionFactory | null): Promise<SkillRuntime> {
  checkRuntimeOptions(options);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const home = options.home ?? os.homedir();
  const projects = options.projects ?? {};
  let bundleDigest: string | null = null;
  let bundleSources: SkillSource[] | undefined;
  if (options.bundle !== undefined) {
    if (options.sources !== undefined) throw new TypeError("bundle and sources cannot be given together: a bundle is the one source");
    const { verifyBundle } = await import("./registry/bundle-verify.js");
    const check = await verifyBundle(path.resolve(cwd, options.bundle));
    if (check.problems.length > 0 || check.digest === null) throw new BundleCheckError(options.bundle, check.problems);
    bundleDigest = check.digest;
    bundleSources = [{ path: check.skillsDir, origin: "global" }];
  }
  const sources = (bundleSources ?? options.sources ?? defaultSources(cwd, home)).map((source) =>
    withProjectLabel(typeof source.path === "string" ? { ...source, path: path.resolve(cwd, source.path) } : source, projects),
  );
  const fixedEnv = options.env;
  // Modules only some runtimes use are imported by those alone (a `list` in a fresh process
  // paid for every one of them), the watcher's while the first scan runs.
  const watchModule = options.watch ? import("./registry/watch.js") : null;
  const parseCache = options.parseCache === true || (typeof options.parseCache === "object" && options.parseCache !== null) ? { dir: parseCacheDir(options.parseCache, cwd) } : null;
  const registry = createRegistry(sources, { env: () => fixedEnv ?? process.env, ...(parseCache ? { parseCache } : {}) });
  const policies = { agents: options.agents ?? {}, projects, ...(options.audit ? { audit: options.audit } : {}) };
  const resolve = createScopeResolver(() => registry.snapshot(), policies, () => registry.requirementsGeneration());
  await registry.refresh();

  let watcher: SourceWatcher | null = null;
  if (options.watch) {
    // Events name the directories that changed, so a refresh walks only those.
    const { watchSources } = await watchModule!;
    watcher = watchSources(
      sources.map((s) => s.path),
      {
        skillDirectories: (index) => registry.skillDirectories(index),
        refresh: (changes) => registry.refreshAfterChange(changes),
        rootAllowed: (index, realRoot) => sourceRootAllowed(sources[index]!, realRoot),
      },
      options.watchDebounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS,
    );
    await watcher.ready;
  }

  const host: SessionHost = {
    resolveRegistry: (scope) => resolve(scope),
    // A name miss must see the disk as it is now, not as a scan that started earlier saw it.
    refresh: () => registry.refreshAfterChange(),
    env: () => registry.snapshot().env,
    cwd,
    registryDigest: () => registryDigest(),
    writableSources: (scope) => writableSourcesOf(sources, scope),
    // Only the source written into is walked again: the write named it, so nothing else changed.
    refreshSource: (index) => registry.refreshAfterChange(new Map([[index, null]])),
  };
  const registryDigest = async (): Promise<string> => {
    if (bundleDigest !== null) return bundleDigest;
    const { loadedSkillsDigest } = await import("./registry/registry-digest.js");
    return loadedSkillsDigest(registry.snapshot());
  };

  let store: SessionStore | null = null;
  const ownsStore = typeof options.store === "string";
  try {
    if (options.store !== undefined) store = typeof options.store === "string" ? await (await import("./session/open-store.js")).openSessionStore(options.store, cwd) : options.store;
  } catch (error) {
    watcher?.close();
    await registry.close();
    throw error;
  }
  const needStore = (): SessionStore => {
    if (!store) throw new Error("This runtime has no session store: open it with createSkillRuntime({ store })");
    return store;
  };

  return {
    refresh: () => registry.refresh(),
    registry: (scope) => resolve(scope),
    diagnostics: (scope, options) => {
      const failure = registry.failure();
      const marked = scope ? resolve(scope).diagnostics() : [...registry.snapshot().diagnostics, ...unknownSkillNameWarnings(registry.snapshot(), policies)];
      const loading = options?.referenceDialect === false ? withoutReferenceMarks(marked) : withReferenceChecks(marked);
      return [...loading, ...(watcher?.diagnostics ?? []), ...(failure ? [failure] : [])];
    },
    snapshot: () => registry.snapshot(),
    stats: () => registry.stats(),
    onChange: (listener) => registry.onChange(listener),
    session: (sessionOptions) => {
      if (!createSession) throw new Error("this runtime was opened without sessions: open it with createSkillRuntime");
      return createSession(host, sessionOptions);
    },
    store,
    createStoredSession: async (sessionOptions = {}) => {
      const owner = needStore();
      return (await import("./session/stored-session.js")).createStoredSession(host, owner, sessionOptions);
    },
    openStoredSession: async (id, sessionOptions = {}) => {
      const owner = needStore();
      return (await import("./session/stored-session.js")).openStoredSession(host, owner, id, sessionOptions);
    },
    registryDigest,
    async close() {
      watcher?.close();
      watcher = null;
      await registry.close();
      if (ownsStore) await store?.close();
    },
  };
}

/** Where `parseCache` keeps its files: the directory given (resolved against `cwd`), or the user's cache directory. */
function parseCacheDir(option: true | { dir?: string }, cwd: string): string {
  return option === true || option.dir === undefined ? defaultParseCacheDir() : path.resolve(cwd, option.dir);
}

/** A project source without its own label shows under the label its project policy gives. */
function withProjectLabel(source: SkillSource, projects: Record<string, ProjectPolicy>): SkillSource {
  if (source.label !== undefined || source.origin !== "project" || source.projectId === undefined) return source;
  const label = Object.hasOwn(projects, source.projectId) ? projects[source.projectId]?.label : undefined;
  return label === undefined ? source : { ...source, label };
}
