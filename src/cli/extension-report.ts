import type { ScopedRegistry } from "../access/types.js";
import { extensionVisibility, extensionVisibilityNow, type ExtensionVisibility } from "../adapters/skill-entry.js";
import { keepDiscoveredListings } from "../package/discovered-listings.js";
import type { RegisteredSkill } from "../registry/types.js";

/** Skills checked at once: each check lists a package and reads its SKILL.md. */
const CONCURRENCY = 16;

/**
 * What the MCP Skills Extension does with each skill the scope can use here, decided by the
 * server's own rule (`extensionVisibility`), so `list` and `doctor` say what a client will get.
 * Skills that are not usable here are served by nobody and are left out of the answer.
 */
export async function extensionReport(registry: ScopedRegistry, skills: readonly RegisteredSkill[]): Promise<Map<string, ExtensionVisibility>> {
  const report = new Map<string, ExtensionVisibility>();
  if (!registry.toolAvailable) return report;
  const sourceRoots = registry.sourceRoots ?? [];
  // Most packages are decided without leaving the turn (small folders, no links); the rest, and
  // any whose verdict needs the whole plan, are checked a few at a time off it.
  const later: RegisteredSkill[] = [];
  for (const skill of skills) {
    if (registry.availability(skill.name)?.status !== "available" || registry.blocked?.(skill.name) !== undefined) continue;
    const now = extensionVisibilityNow(skill, sourceRoots);
    if (now) report.set(skill.name, now);
    else later.push(skill);
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < later.length) {
      const skill = later[next++]!;
      report.set(skill.name, await extensionVisibility(skill, sourceRoots));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, later.length) }, worker));
  return report;
}

/**
 * Runs a command that loads the skills and then reports on every package (`extensionReport`),
 * with discovery's listings of skill folders kept for that report: each package's folder is then
 * listed once in the run, not twice (`discovered-listings.ts`).
 */
export async function reportingOnPackages<T>(work: () => Promise<T>): Promise<T> {
  keepDiscoveredListings(true);
  try {
    return await work();
  } finally {
    keepDiscoveredListings(false);
  }
}

/** One phrase for a person: why an extension client will not see the skill, or what its entry leaves out. */
export function extensionNote(visibility: ExtensionVisibility | undefined): string | null {
  if (!visibility) return null;
  if (!visibility.served) return `not served to Skills Extension clients: ${visibility.reason}`;
  if (visibility.leftOut.length > 0) return `Skills Extension entry leaves out ${visibility.leftOut.join(", ")} (not text)`;
  return null;
}
