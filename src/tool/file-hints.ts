/**
 * What a failed read of a skill's file adds to its message, so a model (or a person at `read`)
 * can correct the path in one step: the listed file a mistyped path is close to (`FORMS.md` for
 * `forms.md`), or, for an absolute path inside the skill (activation lists scripts by absolute
 * path, for running), the relative path a read takes instead. Only the skill's own listed files
 * are ever named, so a hint reveals nothing the activation would not show.
 */
import path from "node:path";
import { listResources } from "../package/resources.js";
import { closeNames } from "./suggest.js";

/** The skill-relative path of `filePath` when it is an absolute path inside `skillDir`, else null. */
export function relativeInsideSkill(skillDir: string, filePath: string): string | null {
  if (!path.isAbsolute(filePath)) return null;
  const relative = path.relative(skillDir, path.resolve(filePath));
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join("/");
}

/** ` Did you mean "x"?` naming the skill's listed files closest to `wanted`, or "" when none is close. */
export async function closeFileHint(skillDir: string, wanted: string, sourceRoots: readonly string[]): Promise<string> {
  const listing = await listResources(skillDir, { sourceRoots });
  const known = [...listing.scripts.map((script) => relativeInsideSkill(skillDir, script) ?? script), ...listing.files];
  const close = closeNames(wanted, known);
  return close.length > 0 ? ` Did you mean ${close.map((name) => JSON.stringify(name)).join(", ")}?` : "";
}
