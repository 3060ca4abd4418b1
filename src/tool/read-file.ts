import path from "node:path";
import { normaliseSkillPath, readConfinedFile } from "../package/confined-read.js";
import { RESOURCE_DIRS } from "../package/resources.js";
import type { RegisteredSkill } from "../registry/types.js";
import { failure, success, type Envelope } from "./envelope.js";

const SKILL_FILE = "SKILL.md";

/**
 * Reads one file of a found skill (SPEC §4 Read). Only the package shape the standard defines is
 * readable: `SKILL.md` and files under `scripts/`, `references/`, `assets/`. Other directories a
 * skill may ship (`reference/`, `examples/`, `themes/`) are refused as `unsupported_path`: they
 * stay reachable through the skill directory shown on activation, but this tool serves only
 * the paths it advertises. Never activates the skill.
 */
export async function readSkillFile(skill: RegisteredSkill, filePath: string): Promise<Envelope> {
  const normalised = normaliseSkillPath(filePath);
  if (!normalised.ok) return failure({ code: "skill_read_error", reason: normalised.reason, message: normalised.message });
  const { segments } = normalised;

  let onDisk: string;
  if (segments.length === 1 && isSkillFileName(segments[0]!, skill)) {
    // A skill may keep its file as lowercase `skill.md`; the model asks for `SKILL.md` either way.
    onDisk = path.basename(skill.skillFile);
  } else if (segments.length >= 2 && (RESOURCE_DIRS as readonly string[]).includes(segments[0]!)) {
    onDisk = normalised.path;
  } else {
    return failure({
      code: "skill_read_error",
      reason: "unsupported_path",
      message:
        `Cannot read ${JSON.stringify(normalised.path)}: file_path must be ${SKILL_FILE} or a file under ` +
        `${RESOURCE_DIRS.map((dir) => `${dir}/`).join(", ")}.`,
    });
  }

  const read = await readConfinedFile(skill.dir, onDisk);
  if (!read.ok) return failure({ code: "skill_read_error", reason: read.reason, message: read.message });
  return success({
    name: skill.name,
    status: "file_loaded",
    file_path: onDisk === normalised.path ? read.path : SKILL_FILE,
    content: read.content,
  });
}

function isSkillFileName(segment: string, skill: RegisteredSkill): boolean {
  return segment === SKILL_FILE || segment === path.basename(skill.skillFile);
}
