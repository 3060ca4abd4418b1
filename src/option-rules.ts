/**
 * The one set of rules for the shape of sources and policies, wherever they come from: the
 * config file (`config.ts` builds its schema from these tables) and the library's
 * `createSkillRuntime` options (checked here by hand). The library cannot trust its caller's
 * types at run time: `allowedSkills: "debugging"` made list membership a substring test
 * (`"bug"` was allowed), and a misspelt key silently left a policy wide open. The check is
 * hand-written because `zod` costs 10–20 ms to import and a library's cold start should not
 * pay it; the tables keep both from drifting apart (the `satisfies` clauses fail to compile
 * when a field is added to a type but not here).
 */
import type { AgentPolicy, ProjectPolicy } from "./access/types.js";
import type { AuditMode, Origin, SkillSource } from "./registry/types.js";

/** What one field holds: a non-empty string, a list of non-empty names, an origin, a whole number ≥ 1, a boolean. */
export type FieldKind = "text" | "names" | "origin" | "count" | "flag" | "auditMode";

export const ORIGINS = ["bundled", "global", "project", "agent"] as const satisfies readonly Origin[];

export const AUDIT_MODES = ["block", "warn", "off"] as const satisfies readonly AuditMode[];

export const SOURCE_FIELDS = {
  path: "text",
  origin: "origin",
  projectId: "text",
  label: "text",
  agentId: "text",
  maxDirectories: "count",
  followExternalLinks: "flag",
  linkRoot: "text",
  writable: "flag",
  trusted: "flag",
  optional: "flag",
  audit: "auditMode",
} as const satisfies Record<keyof SkillSource, FieldKind>;

export const AGENT_POLICY_FIELDS = {
  allowedSkills: "names",
  excludedSkills: "names",
  allowedTools: "names",
  deniedTools: "names",
} as const satisfies Record<keyof AgentPolicy, FieldKind>;

export const PROJECT_POLICY_FIELDS = {
  label: "text",
  disabledSkills: "names",
  sharedSkills: "names",
  toolWhitelist: "names",
} as const satisfies Record<keyof ProjectPolicy, FieldKind>;

/** The field naming a source's owner, required for the origins that have one. */
export const OWNER_FIELD: Readonly<Partial<Record<Origin, "projectId" | "agentId">>> = { project: "projectId", agent: "agentId" };

export interface CheckedOptions {
  sources?: unknown;
  agents?: unknown;
  projects?: unknown;
  env?: unknown;
  bundle?: unknown;
  store?: unknown;
  parseCache?: unknown;
  audit?: unknown;
}

/**
 * Checks the library's policy options; throws a `TypeError` naming the first bad field
 * (`agents.a.allowedSkills must be an array of strings`). Absent options are fine: they take
 * their defaults.
 */
export function checkRuntimeOptions(options: CheckedOptions): void {
  if (options.sources !== undefined) {
    if (!Array.isArray(options.sources)) throw new TypeError("sources must be an array of { path, origin } objects");
    options.sources.forEach((source: unknown, index) => checkSource(source, `sources[${index}]`));
  }
  if (options.agents !== undefined) checkPolicies(options.agents, "agents", AGENT_POLICY_FIELDS);
  if (options.projects !== undefined) checkPolicies(options.projects, "projects", PROJECT_POLICY_FIELDS);
  if (options.env !== undefined) {
    if (!isRecord(options.env)) throw new TypeError("env must be an object of variable names to string values");
    for (const [name, value] of Object.entries(options.env)) {
      // An unset variable is simply absent, as in `process.env`; anything else must be text.
      if (value !== undefined && typeof value !== "string") throw new TypeError(`${child("env", name)} must be a string`);
    }
  }
  if (options.parseCache !== undefined && typeof options.parseCache !== "boolean") {
    const cache = options.parseCache;
    if (!isRecord(cache) || Object.keys(cache).some((key) => key !== "dir") || (cache.dir !== undefined && (typeof cache.dir !== "string" || cache.dir === ""))) {
      throw new TypeError("parseCache must be true, false or { dir } with dir a directory path");
    }
  }
  if (options.audit !== undefined) checkAuditPolicy(options.audit, "audit");
  if (options.bundle !== undefined && (typeof options.bundle !== "string" || options.bundle === "")) throw new TypeError("bundle must be the path of a bundle directory");
  if (options.store !== undefined && !(typeof options.store === "string" && options.store !== "") && !isStoreLike(options.store)) {
    throw new TypeError("store must be a SessionStore or a string naming one (a postgres:// URL, `memory`, or a directory)");
  }
}

/**
 * `{ accept: [{ skill, rule }] }`: findings a person has read and trusts, by skill name and rule
 * id. Exact strings: a pattern would accept more than was read.
 */
function checkAuditPolicy(audit: unknown, where: string): void {
  if (!isRecord(audit)) throw new TypeError(`${where} must be an object { accept: [{ skill, rule }] }`);
  checkFields(audit, where, { accept: "flag" }, true);
  if (audit.accept === undefined) return;
  if (!Array.isArray(audit.accept)) throw new TypeError(`${where}.accept must be an array of { skill, rule } objects`);
  audit.accept.forEach((pair: unknown, index) => {
    const at = `${where}.accept[${index}]`;
    if (!isRecord(pair)) throw new TypeError(`${at} must be an object { skill, rule }`);
    checkFields(pair, at, ACCEPTED_PAIR_FIELDS);
    for (const required of ["skill", "rule"] as const) if (pair[required] === undefined) throw new TypeError(`${at}.${required} is required`);
  });
}

export const ACCEPTED_PAIR_FIELDS = { skill: "text", rule: "text" } as const satisfies Record<string, FieldKind>;

function checkSource(source: unknown, where: string): void {
  if (!isRecord(source)) throw new TypeError(`${where} must be an object { path, origin }`);
  checkFields(source, where, SOURCE_FIELDS);
  for (const required of ["path", "origin"] as const) {
    if (source[required] === undefined) throw new TypeError(`${where}.${required} is required`);
  }
  // A project source without an id is the library's unnamed (working-directory) project, which
  // the default sources use; a config file names its projects, so there the id is required.
  const writableProblem = writableSourceProblem(source);
  if (writableProblem !== null) throw new TypeError(`${where}: ${writableProblem}`);
  const owner = source.origin === "project" ? undefined : OWNER_FIELD[source.origin as Origin];
  if (owner !== undefined && source[owner] === undefined) {
    throw new TypeError(`${where}.${owner} is required when origin is ${JSON.stringify(source.origin)}`);
  }
}

/**
 * Only an agent's private source or a project's source may be writable (SPEC §11): a skill
 * written into the shared pool (global, bundled) would reach every agent, not just its writer's
 * scope; `trusted` means something only on a writable source.
 */
export function writableSourceProblem(source: { origin?: unknown; writable?: unknown; trusted?: unknown }): string | null {
  if (source.writable === true && source.origin !== "agent" && source.origin !== "project") {
    return `writable applies to agent and project sources only; a ${String(source.origin)} source is shared by every agent`;
  }
  if (source.trusted === true && source.writable !== true) return "trusted applies only to a writable source";
  return null;
}

function checkPolicies(policies: unknown, where: string, fields: Readonly<Record<string, FieldKind>>): void {
  if (!isRecord(policies)) throw new TypeError(`${where} must be an object mapping ids to policies`);
  for (const [id, policy] of Object.entries(policies)) {
    const at = child(where, id);
    if (id === "") throw new TypeError(`${where} has an empty id`);
    if (!isRecord(policy)) throw new TypeError(`${at} must be an object`);
    checkFields(policy, at, fields);
  }
}

function checkFields(value: Record<string, unknown>, where: string, fields: Readonly<Record<string, FieldKind>>, keysOnly = false): void {
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) {
      throw new TypeError(`${child(where, key)} is not a known option; allowed: ${Object.keys(fields).join(", ")}`);
    }
    if (keysOnly) continue;
    const field = value[key];
    // An explicit `undefined` is an absent option (a spread of optional parts gives those).
    if (field !== undefined) checkField(field, child(where, key), fields[key]!);
  }
}

function checkField(value: unknown, where: string, kind: FieldKind): void {
  switch (kind) {
    case "text":
      if (typeof value !== "string" || value === "") throw new TypeError(`${where} must be a non-empty string`);
      return;
    case "names":
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw new TypeError(`${where} must be an array of strings`);
      value.forEach((item: string, index) => {
        if (item === "") throw new TypeError(`${where}[${index}] must not be empty`);
      });
      return;
    case "origin":
      if (!(ORIGINS as readonly unknown[]).includes(value)) throw new TypeError(`${where} must be one of ${ORIGINS.map((o) => JSON.stringify(o)).join(", ")}`);
      return;
    case "count":
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new TypeError(`${where} must be a whole number of at least 1`);
      return;
    case "flag":
      if (typeof value !== "boolean") throw new TypeError(`${where} must be true or false`);
      return;
    case "auditMode":
      if (!(AUDIT_MODES as readonly unknown[]).includes(value)) throw new TypeError(`${where} must be one of ${AUDIT_MODES.map((m) => JSON.stringify(m)).join(", ")}`);
      return;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `where.key`, or `where["odd key"]` when the key would not read as one name. */
function child(where: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${where}.${key}` : `${where}[${JSON.stringify(key)}]`;
}

function isStoreLike(value: unknown): boolean {
  const store = value as { read?: unknown; appendAt?: unknown } | null;
  return typeof store === "object" && store !== null && typeof store.read === "function" && typeof store.appendAt === "function";
}
