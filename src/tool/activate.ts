import { existsSync } from "node:fs";
import type { Scope } from "../access/types.js";
import { showInvisible } from "../audit/invisible.js";
import { readStampedSkillBody, SkillBodyError, type StampedBody } from "../package/body.js";
import { registeredSkillDir } from "../package/confined-read.js";
import { isOutOfDescriptors, outOfDescriptorsText } from "../package/descriptor-limit.js";
import { fillSkillDir } from "../package/skill-dir-markers.js";
import { envNames } from "../package/requirements.js";
import { hasResources, listResources } from "../package/resources.js";
import { sameStamp } from "../package/skill-file.js";
import type { RegisteredSkill } from "../registry/types.js";
import { auditRefusal } from "./audit-gate.js";
import { failure, success, type EnvironmentAccess, type Envelope, type ReadErrorReason, type ResourceFiles } from "./envelope.js";
import { lookupAfterRefresh, type FoundSkill } from "./lookup.js";
import type { SkillToolContext, SkillToolDeps } from "./types.js";

const BODY_ERROR_REASONS: Record<string, ReadErrorReason> = {
  skill_file_not_utf8: "not_utf8",
  skill_file_not_regular: "not_a_file",
};

/**
 * Activates a found skill (SPEC §4 Activate, steps 2–5). `content` is the body alone: every
 * presentation concern (wrapper, directory line, resource block) belongs to the renderer, so
 * the stored envelope stays the same whatever host shows it.
 *
 * The body is read from disk while everything else about the skill (requirements, env names,
 * and the declarations a session keeps) comes from the registry record. When the file read is
 * not the version that record was built from, the skills are rescanned once and the name
 * resolved again, so the result describes one version of the file. That rescan counts as the
 * call's one rescan: a file still changing afterwards is answered from the fresh record anyway.
 */
export async function activateSkill(
  deps: SkillToolDeps,
  scope: Scope,
  found: FoundSkill,
  ctx: SkillToolContext,
): Promise<{ envelope: Envelope; skillDir: string }> {
  let current = found;
  let prepared = await prepare(current);
  // A file that could not be read at all (removed, renamed with its directory, grown past the
  // limit) is as stale as one read at another stamp: without the rescan the list kept offering
  // it, and the error's advice to list the skills again led back to the same error.
  const stale = prepared.ok ? !sameStamp(prepared.stamp, current.skill.stamp) : prepared.readFailed;
  if (stale && !current.refreshed) {
    const again = await lookupAfterRefresh(deps, scope, current.skill.name, ctx.userInvoked === true);
    if (!again.ok) return { envelope: failure(again.error), skillDir: current.skill.dir };
    current = again;
    prepared = await prepare(current);
  }
  const { skill } = current;
  if (!prepared.ok) return { envelope: prepared.envelope, skillDir: skill.dir };
  // The envelope is what every host hands the model (the text and MCP's `structuredContent`) and
  // what the session logs and carries: invisible characters are shown once, here, for all of them.
  const content = showInvisible(fillSkillDir(prepared.body, skill.dir));

  const fresh = ctx.activateSkill?.(skill.name, content, skill) ?? true;
  if (!fresh) {
    return {
      envelope: success({
        name: skill.name,
        status: "already_active",
        message: `Skill ${JSON.stringify(skill.name)} is already loaded in this conversation; follow the instructions it gave earlier.`,
      }),
      skillDir: skill.dir,
    };
  }
  const resourceFiles = await resourceFilesOf(skill, current.registry.sourceRoots);
  const environmentAccess = environmentAccessOf(skill);
  return {
    envelope: success({
      name: skill.name,
      status: "loaded",
      content,
      ...(resourceFiles ? { resource_files: resourceFiles } : {}),
      ...(environmentAccess ? { environment_access: environmentAccess } : {}),
    }),
    skillDir: skill.dir,
  };
}

/** Checks requirements, then reads the body: an unusable skill never costs a file read. */
async function prepare(found: FoundSkill): Promise<({ ok: true } & StampedBody) | { ok: false; envelope: Envelope; readFailed: boolean }> {
  const { registry, skill } = found;
  const availability = registry.availability(skill.name);
  if (availability?.status === "unavailable") {
    return {
      ok: false,
      envelope: failure({
        code: "skill_unavailable",
        message: `Skill ${JSON.stringify(skill.name)} cannot be used here: missing ${availability.missing.join(", ")}.`,
        missing: availability.missing,
      }),
      readFailed: false,
    };
  }
  if (availability?.status === "invalid") {
    return {
      ok: false,
      envelope: failure({
        code: "skill_unavailable",
        message: `Skill ${JSON.stringify(skill.name)} cannot be used: its requirements are malformed (${availability.message}).`,
        missing: [],
      }),
      readFailed: false,
    };
  }
  const refused = await auditRefusal(registry, skill);
  if (refused) return { ok: false, envelope: failure(refused), readFailed: false };
  // A folder swapped for a link since loading would serve another skill's body under this name:
  // answered as a file that could not be read, which rescans once (`registeredSkillDir`).
  const registered = registeredSkillDir(skill.dir);
  if (!registered.ok) {
    return {
      ok: false,
      envelope: failure({ code: "skill_read_error", reason: registered.reason, message: `Skill ${JSON.stringify(skill.name)} could not be loaded: ${registered.why}.` }),
      readFailed: true,
    };
  }
  try {
    return { ok: true, ...(await readStampedSkillBody(skill)) };
  } catch (error) {
    if (error instanceof SkillBodyError && isOutOfDescriptors(error.errno)) {
      // Nothing is wrong with the skill, and a rescan could open nothing either: say what happened.
      return {
        ok: false,
        envelope: failure({
          code: "skill_read_error",
          reason: "io",
          message: `Skill ${JSON.stringify(skill.name)} could not be loaded: ${outOfDescriptorsText(error.errno!)}.`,
        }),
        readFailed: false,
      };
    }
    // The skill can vanish or change between listing and activation; that is an answer, not a crash.
    const known = error instanceof SkillBodyError ? BODY_ERROR_REASONS[error.code] : undefined;
    const reason: ReadErrorReason = known ?? (existsSync(skill.skillFile) ? "io" : "not_found");
    const detail = error instanceof SkillBodyError ? error.code : reason;
    return {
      ok: false,
      envelope: failure({
        code: "skill_read_error",
        reason,
        message:
          `Skill ${JSON.stringify(skill.name)} could not be loaded: its SKILL.md could not be read (${detail}); ` +
          "it may have been changed or removed. List the skills to see what is available now.",
      }),
      readFailed: true,
    };
  }
}

async function resourceFilesOf(skill: RegisteredSkill, sourceRoots: readonly string[] | undefined): Promise<ResourceFiles | undefined> {
  // listResources never throws: unreadable folders simply list nothing.
  const listing = await listResources(skill.dir, sourceRoots ? { sourceRoots } : {});
  if (!hasResources(listing)) return undefined;
  const parts = [
    "These are additional files of this skill. Use one only when the skill's instructions tell you to.",
    listing.scripts.length > 0 ? "Scripts are absolute paths: run them directly." : "",
    listing.files.length > 0
      ? `The other files are relative paths: read them with this tool, passing name ${JSON.stringify(skill.name)} and the path as file_path.`
      : "",
    listing.truncated ? "The listing was cut short; the skill holds more files than are shown." : "",
  ];
  return { guidance: parts.filter((part) => part !== "").join(" "), files: [...listing.scripts, ...listing.files] };
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
