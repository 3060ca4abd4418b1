/**
 * Environment grants (SPEC §5.4): activating a skill with env requirements grants those names
 * for as long as the skill is active. Only names ever reach model-visible text; values leave
 * the session solely through `envValuesFor`, for the host to pass to the process it runs.
 */
import { setOwnProperty } from "../package/own-property.js";
import type { ConversationState } from "./state.js";

export function grantedEnvNames(state: ConversationState): string[] {
  const names = new Set<string>();
  for (const skill of state.active.values()) for (const name of skill.facts.env) names.add(name);
  return [...names].sort();
}

/** Values of the requested names that are granted and set; everything else is left out. */
export function envValuesFor(
  state: ConversationState,
  env: Readonly<Record<string, string>>,
  keys: readonly string[],
): Record<string, string> {
  const granted = new Set(grantedEnvNames(state));
  const values: Record<string, string> = {};
  for (const key of keys) {
    if (!granted.has(key) || !Object.prototype.hasOwnProperty.call(env, key)) continue;
    const value = env[key];
    if (typeof value === "string") setOwnProperty(values, key, value);
  }
  return values;
}
