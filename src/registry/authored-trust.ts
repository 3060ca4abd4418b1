/**
 * The trust rule of writable sources (SPEC §11): a skill an agent can write never pre-approves
 * tools and never grants environment variables, unless the host marks its source `trusted`.
 * Otherwise an agent could raise its own privileges by writing a skill that declares
 * `allowed-tools: Bash` or `env: API_TOKEN` and then loading it. The declarations are dropped
 * from the registered manifest, the one record every later step (activation, grants, narrowing,
 * restore) reads, and a warning says what was ignored.
 */
import { diagnostic, type Diagnostic } from "../package/diagnostic.js";
import { envNames, parseRequirements } from "../package/requirements.js";
import type { Requirement, Requirements, SkillManifest } from "../package/types.js";
import type { SkillSource } from "./types.js";

/** Whether skills of this source lose their grants: writable, and not marked trusted. */
export function withholdsGrants(source: Pick<SkillSource, "writable" | "trusted">): boolean {
  return source.writable === true && source.trusted !== true;
}

export interface WithheldGrants {
  manifest: SkillManifest;
  /** The warning naming what was ignored; null when the skill declared nothing to ignore. */
  warning: Diagnostic | null;
}

/**
 * The manifest without `allowed-tools` and without env requirements. An env requirement is
 * dropped rather than kept as a gate: the skill could never be granted the variable, so
 * requiring it would only hide the skill when the variable happens to be unset.
 */
export function withoutGrants(manifest: SkillManifest, skillFile: string): WithheldGrants {
  const env = envNames(manifest.requirements);
  const tools = manifest.allowedTools ?? [];
  if (env.length === 0 && tools.length === 0 && manifest.allowedTools === null) return { manifest, warning: null };
  const ignored: string[] = [];
  if (manifest.allowedTools !== null) ignored.push(`allowed-tools (${tools.join(", ") || "none"}) pre-approve nothing`);
  if (env.length > 0) ignored.push(`env requirements (${env.join(", ")}) grant nothing and are not checked`);
  const stripped: SkillManifest = Object.freeze({
    ...manifest,
    allowedTools: null,
    requirements: env.length > 0 ? requirementsWithoutEnv(manifest.requirements!) : manifest.requirements,
  });
  return {
    manifest: stripped,
    warning: Object.freeze(
      diagnostic(
        skillFile,
        "warning",
        "authored_grants_ignored",
        `'${manifest.name}' is in a writable source that is not trusted: its ${ignored.join("; its ")}. Mark the source \`trusted: true\` to honour them.`,
      ),
    ),
  };
}

/**
 * The same rule on a frontmatter as parsed, for surfaces that publish the file rather than the
 * manifest (the Skills Extension's entry and the SKILL.md it serves): a client reading them
 * would otherwise see, and might honour, grants activation ignores. `allowed-tools` goes. Env
 * requirements live under `metadata.requirements` (or `metadata.vbot`), a mapping, which the
 * extension never carries (its metadata is text only, `entryFrontmatter`), so they need no
 * rewriting here; they are named among what was ignored all the same. The frontmatter given is
 * not changed; `ignored` is empty when the skill declared no grant.
 */
export function frontmatterWithoutGrants(frontmatter: Record<string, unknown>): { frontmatter: Record<string, unknown>; ignored: string[] } {
  const ignored: string[] = [];
  let result = frontmatter;
  if (Object.hasOwn(frontmatter, "allowed-tools")) {
    result = { ...frontmatter };
    delete result["allowed-tools"];
    // Named, not quoted: its value is the skill author's text.
    ignored.push("allowed-tools");
  }
  // Read from the file, as loading reads it: the registered manifest has lost them already.
  const metadata = frontmatter.metadata;
  const raw = isMapping(metadata) ? (metadata.requirements ?? (isMapping(metadata.vbot) ? metadata.vbot.requirements : undefined)) : undefined;
  const parsed = raw === undefined ? null : parseRequirements(raw);
  const env = parsed?.ok ? envNames(parsed.value) : [];
  if (env.length > 0) ignored.push(`env requirements (${env.join(", ")})`);
  return { frontmatter: result, ignored };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function requirementsWithoutEnv(requirements: Requirements): Requirements | null {
  const root = requirements.root === null ? null : withoutEnv(requirements.root);
  const optional = requirements.optional.map(withoutEnv).filter((item): item is Requirement => item !== null);
  if (root === null && optional.length === 0) return null;
  return Object.freeze({ root, optional: Object.freeze(optional) as Requirement[] });
}

/** The node with its env leaves taken as met; null when nothing is left to check. */
function withoutEnv(node: Requirement): Requirement | null {
  switch (node.kind) {
    case "env":
      return null;
    case "all": {
      const items = node.items.map(withoutEnv).filter((item): item is Requirement => item !== null);
      return items.length === 0 ? null : Object.freeze({ kind: "all", items: Object.freeze(items) as Requirement[] });
    }
    case "any": {
      const items = node.items.map(withoutEnv);
      // A branch that was only env is now always met, so the whole choice is.
      if (items.some((item) => item === null)) return null;
      return Object.freeze({ kind: "any", items: Object.freeze(items) as Requirement[] });
    }
    default:
      return node;
  }
}
