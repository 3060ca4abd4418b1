/**
 * Environment grants (SPEC §5.4): activating a skill with env requirements grants those names
 * for as long as the skill is active. Only names ever reach model-visible text; values leave
 * the session solely through `envValuesFor`, for the host to pass to the process it runs.
 *
 * A log is data, not authority (SPEC §5.6): a record's env names are honoured only where the
 * skill, as the session's registry holds it now, still declares them. A forged or stale record
 * (`activation.env: ["AWS_SECRET_ACCESS_KEY"]`) grants nothing the skill does not ask for, and a
 * skill that dropped a name, or is gone, no longer holds it.
 */
import { setOwnProperty } from "../package/own-property.js";
import type { ConversationState } from "./state.js";

/** The env names the named skill declares now; empty when it is not in the session's registry. */
export type DeclaredEnv = (skill: string) => readonly string[];

export function grantedEnvNames(state: ConversationState, declared: DeclaredEnv): string[] {
  const names = new Set<string>();
  for (const skill of state.active.values()) {
    if (skill.facts.env.length === 0) continue;
    const current = declared(skill.name);
    for (const name of skill.facts.env) if (current.includes(name)) names.add(name);
  }
  return [...names].sort();
}

/** Values of the requested names that are granted and set; everything else is left out. */
export function envValuesFor(
  state: ConversationState,
  declared: DeclaredEnv,
  env: Readonly<Record<string, string>>,
  keys: readonly string[],
): Record<string, string> {
  const granted = new Set(grantedEnvNames(state, declared));
  const values: Record<string, string> = {};
  for (const key of keys) {
    if (!granted.has(key) || !Object.prototype.hasOwnProperty.call(env, key)) continue;
    const value = env[key];
    if (typeof value === "string") setOwnProperty(values, key, value);
  }
  return values;
}
