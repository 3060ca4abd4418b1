/**
 * `skillport.config.json`: where skills come from, and the agent and project policies the CLI
 * and the MCP server apply. Everything a flag cannot say lives here. A bad file is refused as a
 * whole with an error naming the file and the key, because a half-applied policy could show a
 * skill that was meant to stay hidden.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import type * as Zod from "zod";
import type { AgentPolicy, ProjectPolicy } from "./access/types.js";
import type { AuditPolicy } from "./access/audit-verdict.js";
import { AGENT_POLICY_FIELDS, AUDIT_MODES, ORIGINS, OWNER_FIELD, PROJECT_POLICY_FIELDS, SOURCE_FIELDS, writableSourceProblem, type FieldKind } from "./option-rules.js";
import { readRegularFileSync } from "./package/regular-file.js";
import type { SkillSource } from "./registry/types.js";

export const DEFAULT_CONFIG_FILE = "skillport.config.json";

export interface SkillportConfig {
  /** Absolute path of the file this was read from. */
  file: string;
  /** Sources with paths resolved against the file's directory; absent means "defaults". */
  sources?: SkillSource[];
  agents: Record<string, AgentPolicy>;
  projects: Record<string, ProjectPolicy>;
  /** Findings a person has read and trusts (`audit.accept`); absent when the file names none. */
  audit?: AuditPolicy;
}

/** A config file that cannot be used; `key` is the dotted path of the bad entry, when there is one. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly key: string | null,
    readonly detail: string,
  ) {
    super(key ? `${file}: ${key}: ${detail}` : `${file}: ${detail}`);
    this.name = "ConfigError";
  }
}

/**
 * Builds the schema with `zod`, loaded on first need: importing it cost every command ~10–20 ms
 * of start-up, and most runs have no config file to check.
 */
function buildSchema() {
  const z = createRequire(import.meta.url)("zod") as typeof Zod;
  const names = z.array(z.string().min(1, "must not be empty"));
  // One zod type per kind of field in `option-rules.ts`, the rules the library's options follow too.
  const kinds = {
    text: () => z.string().min(1, "must not be empty"),
    names: () => names,
    origin: () => z.enum(ORIGINS),
    count: () => z.number().int("must be a whole number").min(1),
    flag: () => z.boolean(),
    auditMode: () => z.enum(AUDIT_MODES),
  };
  type Kinds = typeof kinds;
  const optionalFields = <F extends Readonly<Record<string, FieldKind>>>(fields: F) =>
    Object.fromEntries(Object.entries<FieldKind>(fields).map(([key, kind]) => [key, kinds[kind]().optional()])) as unknown as {
      [P in keyof F]: Zod.ZodOptional<ReturnType<Kinds[F[P]]>>;
    };

  const sourceObject = z
    .strictObject({
      ...optionalFields(SOURCE_FIELDS),
      path: kinds.text(),
      // A config file's source is global unless it says otherwise; the library's must say.
      origin: kinds.origin().default("global"),
    })
    .superRefine((source, ctx) => {
      const owner = OWNER_FIELD[source.origin];
      if (owner !== undefined && !source[owner]) {
        ctx.addIssue({ code: "custom", path: [owner], message: `required when origin is "${source.origin}"` });
      }
      const writable = writableSourceProblem(source);
      if (writable !== null) ctx.addIssue({ code: "custom", path: [source.writable === true ? "writable" : "trusted"], message: writable });
    });

  // A bare string is the common case ("one more directory of skills"), so it is accepted as a global source.
  const sourceEntry = z.preprocess((value) => (typeof value === "string" ? { path: value } : value), sourceObject);

  const agentPolicy = z.strictObject(optionalFields(AGENT_POLICY_FIELDS));
  const projectPolicy = z.strictObject(optionalFields(PROJECT_POLICY_FIELDS));

  return z.strictObject({
    $schema: z.string().optional(),
    sources: z.array(sourceEntry).optional(),
    agents: z.record(z.string().min(1), agentPolicy).default({}),
    projects: z.record(z.string().min(1), projectPolicy).default({}),
    audit: z.strictObject({ accept: z.array(z.strictObject({ skill: kinds.text(), rule: kinds.text() })).optional() }).optional(),
  });
}

let schema: ReturnType<typeof buildSchema> | null = null;

/** Reads and validates a config file. Throws `ConfigError` for anything unusable. */
export function loadConfigFile(file: string, home: string = os.homedir()): SkillportConfig {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = readRegularFileSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const detail =
      code === "ENOENT"
        ? "file does not exist"
        : code === "EISDIR"
          ? "is a directory, not a JSON file"
          : code === "ENOTREG"
            ? "is not a regular file (a FIFO or a device would block the read)"
            : `cannot be read (${code ?? String(error)})`;
    throw new ConfigError(absolute, null, detail);
  }
  return parseConfig(text, absolute, home);
}

/** Validates config text read from `file`; relative source paths are resolved against the file's directory. */
export function parseConfig(text: string, file: string, home: string = os.homedir()): SkillportConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new ConfigError(file, null, `not valid JSON: ${jsonErrorWithLocation(text, error as Error)}`);
  }
  const unsafe = unsafeKey(text);
  if (unsafe) throw new ConfigError(file, null, unsafe);
  const parsed = (schema ??= buildSchema()).safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(file, describeKey(issue.path, issue), describeIssue(issue));
  }
  const baseDir = path.dirname(file);
  const config: SkillportConfig = { file, agents: parsed.data.agents, projects: parsed.data.projects };
  if (parsed.data.audit?.accept) config.audit = { accept: parsed.data.audit.accept };
  if (parsed.data.sources) {
    config.sources = parsed.data.sources.map((source) => {
      const resolved: SkillSource = { path: resolveSourcePath(source.path, baseDir, home), origin: source.origin };
      if (source.projectId !== undefined) resolved.projectId = source.projectId;
      if (source.agentId !== undefined) resolved.agentId = source.agentId;
      if (source.label !== undefined) resolved.label = source.label;
      if (source.maxDirectories !== undefined) resolved.maxDirectories = source.maxDirectories;
      if (source.followExternalLinks !== undefined) resolved.followExternalLinks = source.followExternalLinks;
      if (source.linkRoot !== undefined) resolved.linkRoot = resolveSourcePath(source.linkRoot, baseDir, home);
      if (source.optional !== undefined) resolved.optional = source.optional;
      if (source.writable !== undefined) resolved.writable = source.writable;
      if (source.trusted !== undefined) resolved.trusted = source.trusted;
      if (source.audit !== undefined) resolved.audit = source.audit;
      return resolved;
    });
  }
  return config;
}

/**
 * A key that would change the policy without a word, in text `JSON.parse` has accepted: a key
 * given twice in one object (the parser keeps the last, so `"r": {allowedSkills…}, "r": {}`
 * quietly drops a restriction), or `__proto__` (the schema's records drop it unchecked).
 */
function unsafeKey(text: string): string | null {
  // One set of keys per open object; null for an open array.
  const open: Array<Set<string> | null> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{") open.push(new Set());
    else if (c === "[") open.push(null);
    else if (c === "}" || c === "]") open.pop();
    else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      let next = end + 1;
      while (next < text.length && (text[next] === " " || text[next] === "\t" || text[next] === "\n" || text[next] === "\r")) next++;
      const keys = open[open.length - 1];
      if (keys && text[next] === ":") {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        // The line is counted only for a key that is refused: per key, it made the scan quadratic.
        const line = () => text.slice(0, i).split("\n").length;
        if (key === "__proto__") return `the key "__proto__" (line ${line()}) is not allowed: it names no agent, project or setting`;
        if (keys.has(key)) return `the key ${JSON.stringify(key)} appears twice in one object (line ${line()}); a later entry would silently replace the earlier one`;
        keys.add(key);
      }
      i = end;
    }
  }
  return null;
}

/** The config file to use: the one asked for, else `./skillport.config.json` when it exists, else none. */
export function findConfigFile(explicit: string | undefined, cwd: string): string | null {
  if (explicit) return path.resolve(cwd, explicit);
  const candidate = path.join(cwd, DEFAULT_CONFIG_FILE);
  return fs.existsSync(candidate) ? candidate : null;
}

function resolveSourcePath(value: string, baseDir: string, home: string): string {
  if (value === "~") return home;
  if (value.startsWith("~/")) return path.join(home, value.slice(2));
  return path.resolve(baseDir, value);
}

type Issue = Zod.z.core.$ZodIssue;

function describeKey(issuePath: readonly PropertyKey[], issue: Issue): string | null {
  const parts = issuePath.map((part) => (typeof part === "number" ? `[${part}]` : String(part)));
  if (issue.code === "unrecognized_keys") parts.push(issue.keys[0]!);
  const key = parts.reduce((joined, part) => (part.startsWith("[") || joined === "" ? joined + part : `${joined}.${part}`), "");
  return key === "" ? null : key;
}

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? `s ${issue.keys.map((k) => `"${k}"`).join(", ")}` : ""}; ${allowedKeysHint(issue.path)}`;
    case "invalid_type":
      if (issue.expected === "object" && issue.path[0] === "sources" && issue.path.length === 2) {
        return `expected a path string or an object {"path": ..., "origin": ...}, got ${typeName(issue.input)}`;
      }
      return `expected ${issue.expected}${issue.input === undefined ? " (missing)" : `, got ${typeName(issue.input)}`}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return issue.message;
  }
}

function allowedKeysHint(issuePath: readonly PropertyKey[]): string {
  const [top, , third] = issuePath;
  if (issuePath.length === 0) return "allowed: sources, agents, projects, audit";
  if (top === "audit") return issuePath.length === 1 ? "allowed: accept" : "allowed: skill, rule";
  if (top === "sources") return `allowed: ${Object.keys(SOURCE_FIELDS).join(", ")}`;
  if (top === "agents" && third === undefined) return "allowed: allowedSkills, excludedSkills, allowedTools, deniedTools";
  if (top === "projects" && third === undefined) return "allowed: label, disabledSkills, sharedSkills, toolWhitelist";
  return "remove it or check its spelling";
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function jsonErrorWithLocation(text: string, error: Error): string {
  // V8 quotes a multi-line excerpt of the input after some messages; the location says it better.
  const message = error.message.replace(/, .*is not valid JSON$/s, "");
  if (/line \d+ column \d+/.test(message)) return message;
  const stated = /at position (\d+)/.exec(message);
  const offset = stated ? Number(stated[1]) : firstBadOffset(text);
  const before = text.slice(0, offset).split("\n");
  return `${message} (line ${before.length} column ${before[before.length - 1]!.length + 1})`;
}

/**
 * Some parse errors carry no position. A prefix of valid JSON fails only "at its end", so the
 * shortest prefix that fails anywhere else ends at the offending character: binary search for it.
 */
function firstBadOffset(text: string): number {
  const viable = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return true;
    } catch (error) {
      const message = (error as Error).message;
      const position = /at position (\d+)/.exec(message);
      return /Unexpected end/.test(message) || (position !== null && Number(position[1]) >= length);
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (viable(middle + 1)) low = middle + 1;
    else high = middle;
  }
  return low;
}
