/**
 * Which writable sources a scope may write into (SPEC §11), in placement order: the calling
 * agent's own private sources first, then the sources of the scope's project (the unnamed one for
 * a scope naming none). The same ownership the skill policy uses to show skills: a scope writes
 * only where it would see what it wrote, and never into another agent's private source.
 */
import type { SkillSource } from "../registry/types.js";
import type { Scope } from "./types.js";

export interface WritableSource {
  /** Index of the source in the runtime's configured order. */
  index: number;
  /** The source's directory, where a new skill folder is created. */
  path: string;
  origin: "agent" | "project";
}

export function writableSourcesOf(sources: readonly SkillSource[], scope: Scope): WritableSource[] {
  const own: WritableSource[] = [];
  const project: WritableSource[] = [];
  sources.forEach((source, index) => {
    if (source.writable !== true) return;
    if (source.origin === "agent" && scope.agentId !== undefined && source.agentId === scope.agentId) own.push({ index, path: source.path, origin: "agent" });
    else if (source.origin === "project" && source.projectId === scope.projectId) project.push({ index, path: source.path, origin: "project" });
  });
  return [...own, ...project];
}
