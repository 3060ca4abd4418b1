/**
 * A store named by one string, as the CLI and `createSkillRuntime({ store })` take it:
 * `postgres://…` or `postgresql://…` is PostgreSQL, `memory` is this process's memory, and
 * anything else is a directory of JSONL files (`file:` in front is allowed and dropped).
 * The PostgreSQL client is loaded only when a URL asks for it.
 */
import * as path from "node:path";
import { memoryStore, type SessionStore } from "./store.js";
import { fileStore } from "./store-file.js";

export function isDatabaseUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

export async function openSessionStore(spec: string, cwd = process.cwd()): Promise<SessionStore> {
  if (spec === "") throw new TypeError("a store is a postgres:// URL, `memory`, or a directory; got an empty string");
  if (isDatabaseUrl(spec)) {
    const { postgresStore } = await import("./store-postgres.js");
    return postgresStore(spec);
  }
  if (spec === "memory") return memoryStore();
  return fileStore(path.resolve(cwd, spec.startsWith("file:") ? spec.slice("file:".length) : spec));
}
