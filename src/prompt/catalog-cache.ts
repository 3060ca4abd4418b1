/**
 * One catalog text per (skill list, format, budget), shared by every session and every MCP
 * `tools/list` that asks for the same list: a server's sessions of one scope all see the same
 * skills, and rendering the catalog again for each one was most of what opening a session cost.
 *
 * The list is the key by identity. Scoped registries hand out one frozen list per snapshot and
 * requirement check (`ScopedRegistry.offered`), replaced whenever what it holds may change, so a
 * text cached for a list can never be stale; the texts go when their list is collected.
 */
import type { SkillInfo } from "../access/types.js";
import { renderCatalog, type CatalogOptions } from "./catalog.js";

/** Option sets kept per list; a process uses one or two (the server's budget, a prompt's). */
const MAX_VARIANTS = 8;

const texts = new WeakMap<readonly SkillInfo[], Map<string, string>>();

export function sharedCatalog(skills: readonly SkillInfo[], options: CatalogOptions = {}): string {
  const key = `${options.format ?? "xml"}\u0000${options.budgetChars ?? ""}`;
  let variants = texts.get(skills);
  const cached = variants?.get(key);
  if (cached !== undefined) return cached;
  const text = renderCatalog(skills, options);
  if (!variants) texts.set(skills, (variants = new Map()));
  if (variants.size >= MAX_VARIANTS) variants.delete(variants.keys().next().value!);
  variants.set(key, text);
  return text;
}
