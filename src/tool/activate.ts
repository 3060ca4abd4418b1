import { existsSync } from "node:fs";
import type { ScopedRegistry } from "../access/types.js";
import { readSkillBody, SkillBodyError } from "../package/body.js";
import { envNames } from "../package/requirements.js";
import { hasResources, listResources, type ResourceListing } from "../package/resources.js";
import type { RegisteredSkill } from "../registry/types.js";
import { failure, success, type EnvironmentAccess, type Envelope, type ReadErrorReason, type ResourceFiles } from "./envelope.js";
import type { SkillToolContext } from "./types.js";

/** The marker a SKILL.md body uses for its own directory (`{baseDir}/scripts/run.sh`). */
const BASE_DIR_MARKER = "{baseDir}";

const BODY_ERROR_REASONS: Record<string, ReadErrorReason> = {
  skill_file_not_utf8: "not_utf8",
  skill_file_not_regular: "not_a_file",
};

/**
 * Activates a found skill (SPEC §4 Activate, steps 2–5). `content` is the body alone: every
 * presentation concern (wrapper, directory line, resource block) belongs to the renderer, so
 * the stored envelope stays the same whatever host shows it.
 */
export async function activateSkill(
  registry: ScopedRegistry,
  skill: RegisteredSkill,
  ctx: SkillToolContext,
): Promise<Envelope> {
  const availability = registry.availability(skill.name);
  if (availability?.status === "unavailable") {
    return failure({
      code: "skill_unavailable",
      message: `Skill ${JSON.stringify(skill.name)} cannot be used here: missing ${availability.missing.join(", ")}.`,
      missing: availability.missing,
    });
  }
  if (availability?.status === "invalid") {
    return failure({
      code: "skill_unavailable",
      message: `Skill ${JSON.stringify(skill.name)} cannot be used: its requirements are malformed (${availability.message}).`,
      missing: [],
    });
  }

  let body: string;
  try {
    body = await readSkillBody(skill);
  } catch (error) {
    // The skill can vanish or change between listing and activation; that is an answer, not a crash.
    const code = error instanceof SkillBodyError ? error.code : "io";
    return failure({
      code: "skill_read_error",
      reason: BODY_ERROR_REASONS[code] ?? (existsSync(skill.skillFile) ? "io" : "not_found"),
      message:
        `Skill ${JSON.stringify(skill.name)} could not be loaded: its SKILL.md could not be read (${code}); ` +
        "it may have been changed or removed. List the skills to see what is available now.",
    });
  }
  const content = body.split(BASE_DIR_MARKER).join(skill.dir);

  const fresh = ctx.activateSkill?.(skill.name, content) ?? true;
  if (!fresh) {
    return success({
      name: skill.name,
      status: "already_active",
      message: `Skill ${JSON.stringify(skill.name)} is already loaded in this conversation; follow the instructions it gave earlier.`,
    });
  }
  const resourceFiles = resourceFilesOf(skill);
  const environmentAccess = environmentAccessOf(skill);
  return success({
    name: skill.name,
    status: "loaded",
    content,
    ...(resourceFiles ? { resource_files: resourceFiles } : {}),
    ...(environmentAccess ? { environment_access: environmentAccess } : {}),
  });
}

function resourceFilesOf(skill: RegisteredSkill): ResourceFiles | undefined {
  let listing: ResourceListing;
  try {
    listing = listResources(skill.dir);
  } catch {
    return undefined;
  }
  if (!hasResources(listing)) return undefined;
  const files = [...listing.scripts, ...listing.references, ...listing.assets];
  const parts = [
    "These are additional files of this skill. Use one only when the skill's instructions tell you to.",
    listing.scripts.length > 0 ? "Scripts are absolute paths: run them directly." : "",
    listing.references.length + listing.assets.length > 0
      ? `References and assets are relative paths: read them with this tool, passing name ${JSON.stringify(skill.name)} and the path as file_path.`
      : "",
    listing.truncated ? "The listing was cut short; the skill holds more files than are shown." : "",
  ];
  return { guidance: parts.filter((part) => part !== "").join(" "), files };
}

function environmentAccessOf(skill: RegisteredSkill): EnvironmentAccess | undefined {
  const names = envNames(skill.manifest.requirements);
  if (names.length === 0) return undefined;
  return {
    names,
    guidance:
      `This skill may use the environment variable${names.length > 1 ? "s" : ""} ${names.join(", ")}. ` +
      "Their values are never shown to you. To give a shell command access, request them by name in that call's " +
      `\`env_keys\` argument (for example env_keys: ${JSON.stringify(names)}); a name that is not set stays unset.`,
  };
}
