/**
 * The `skills` CLI's global lock (`~/.agents/.skill-lock.json`, or `$XDG_STATE_HOME/skills/`;
 * version 3; `gh skill` writes it too), read only (SPEC §10.1): `add --global` names what that
 * CLI installed when it finds a folder its own lockfile does not record. skillport never writes
 * it, and a file it cannot read counts as recording nothing, so it is never corrupted by us and
 * never stops us.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface GloballyLocked {
  source: string;
  sourceType: string;
}

export function globalSkillLockPath(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME;
  return state ? path.join(state, "skills", ".skill-lock.json") : path.join(home, ".agents", ".skill-lock.json");
}

/** Name → where that CLI says it came from; empty when there is no such file or it is not version 3 or later. */
export function readGlobalSkillLock(home: string, env: NodeJS.ProcessEnv = process.env): Map<string, GloballyLocked> {
  const found = new Map<string, GloballyLocked>();
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(globalSkillLockPath(home, env), "utf8"));
  } catch {
    return found;
  }
  if (typeof value !== "object" || value === null) return found;
  const { version, skills } = value as { version?: unknown; skills?: unknown };
  if (typeof version !== "number" || version < 3 || typeof skills !== "object" || skills === null) return found;
  for (const [name, entry] of Object.entries(skills)) {
    if (typeof entry !== "object" || entry === null) continue;
    const { source, sourceType } = entry as { source?: unknown; sourceType?: unknown };
    found.set(name, { source: typeof source === "string" ? source : "?", sourceType: typeof sourceType === "string" ? sourceType : "?" });
  }
  return found;
}
