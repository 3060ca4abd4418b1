/**
 * Where skills come from (SPEC §2): the default source list, the precedence of origins, and
 * which sources a scope can see together.
 */
import * as path from "node:path";
import type { Origin, SkillSource } from "./types.js";

/** Lower ranks win a name collision: agent > project > global > bundled. */
export const ORIGIN_RANK: Readonly<Record<Origin, number>> = Object.freeze({ agent: 0, project: 1, global: 2, bundled: 3 });

const DEFAULT_LABEL: Readonly<Record<Origin, string>> = Object.freeze({
  agent: "Private",
  project: "Project",
  global: "Global",
  bundled: "Bundled",
});

export function defaultLabel(origin: Origin): string {
  return DEFAULT_LABEL[origin];
}

/**
 * The sources the CLI and MCP server use when none are configured. The project sources carry no
 * `projectId`: they are the working directory's own project, seen by scopes that name no project.
 */
export function defaultSources(cwd: string, home: string): SkillSource[] {
  return [
    { path: path.resolve(cwd, ".agents/skills"), origin: "project" },
    { path: path.resolve(cwd, ".claude/skills"), origin: "project" },
    { path: path.resolve(home, ".agents/skills"), origin: "global" },
    { path: path.resolve(home, ".claude/skills"), origin: "global" },
  ];
}

/**
 * Skills of one visibility group are always seen together, so a name collision inside a group
 * has a loser everywhere. Different groups meet only in some scopes: the shared pool meets every
 * project and agent, an agent meets any project, but two agents or two projects never meet.
 */
export type VisibilityGroup = string;

export const SHARED_GROUP: VisibilityGroup = "shared";

export function visibilityGroup(source: Pick<SkillSource, "origin" | "projectId" | "agentId">): VisibilityGroup {
  if (source.origin === "agent") return `agent:${source.agentId ?? ""}`;
  if (source.origin === "project") return `project:${source.projectId ?? ""}`;
  return SHARED_GROUP;
}

/** The groups one `(projectId?, agentId?)` scope sees. A scope naming no project sees the unnamed one. */
export function groupsOfScope(scope: { projectId?: string; agentId?: string }): Set<VisibilityGroup> {
  const groups = new Set<VisibilityGroup>([SHARED_GROUP, `project:${scope.projectId ?? ""}`]);
  if (scope.agentId !== undefined) groups.add(`agent:${scope.agentId}`);
  return groups;
}

/** Whether some scope sees both groups at once (and so a collision between them matters). */
export function groupsMeet(a: VisibilityGroup, b: VisibilityGroup): boolean {
  if (a === b) return true;
  const kindA = a.slice(0, a.indexOf(":") + 1) || a;
  const kindB = b.slice(0, b.indexOf(":") + 1) || b;
  return kindA !== kindB;
}
