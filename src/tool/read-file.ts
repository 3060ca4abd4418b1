import path from "node:path";
import { normaliseSkillPath, readConfinedFile } from "../package/confined-read.js";
import { showInvisible } from "../audit/invisible.js";
import type { RegisteredSkill } from "../registry/types.js";
import { failure, success, type Envelope } from "./envelope.js";
import { closeFileHint, relativeInsideSkill } from "./file-hints.js";

const SKILL_FILE = "SKILL.md";

/**
 * Reads one file of a found skill (SPEC §4 Read): `SKILL.md` or any regular file of the
 * package, whatever folder the author keeps it in (`themes/x.md`, `reference/guide.md`,
 * `forms.md`). Confinement and what the package leaves out are decided in
 * `src/package/confined-read.ts`; `sourceRoots` (every source's root) end the package where one
 * lies inside it. Never activates the skill.
 */
export async function readSkillFile(
  skill: RegisteredSkill,
  filePath: string,
  sourceRoots: readonly string[] = [],
): Promise<{ envelope: Envelope; skillFileSha256?: string }> {
  const normalised = normaliseSkillPath(filePath);
  if (!normalised.ok) {
    // An absolute path inside the skill (activation lists scripts that way): say the relative one to read.
    const relative = relativeInsideSkill(skill.dir, filePath);
    const hint = relative === null ? "" : ` Read it as ${JSON.stringify(relative)}.`;
    return { envelope: failure({ code: "skill_read_error", reason: normalised.reason, message: normalised.message + hint }) };
  }
  const { segments } = normalised;
  // A skill may keep its file as lowercase `skill.md`; the model asks for `SKILL.md` either way.
  const isSkillFile = segments.length === 1 && isSkillFileName(segments[0]!, skill);
  const onDisk = isSkillFile ? path.basename(skill.skillFile) : normalised.path;

  // A read of SKILL.md is what a later `skill_manage` edit starts from (SPEC §11): its digest is
  // taken from the same bytes, so the session knows exactly which version the model saw.
  const read = await readConfinedFile(skill.dir, onDisk, { sourceRoots, digest: isSkillFile });
  if (!read.ok) {
    const hint = read.reason === "not_found" ? await closeFileHint(skill.dir, normalised.path, sourceRoots) : "";
    return { envelope: failure({ code: "skill_read_error", reason: read.reason, message: read.message + hint }) };
  }
  const envelope = success({
    name: skill.name,
    status: "file_loaded",
    file_path: onDisk === normalised.path ? read.path : SKILL_FILE,
    // Shown here, in the envelope, so the text and `structuredContent` carry the same marked file.
    content: showInvisible(read.content),
  });
  return read.sha256 !== undefined ? { envelope, skillFileSha256: read.sha256 } : { envelope };
}

function isSkillFileName(segment: string, skill: RegisteredSkill): boolean {
  return segment === SKILL_FILE || segment === path.basename(skill.skillFile);
}
