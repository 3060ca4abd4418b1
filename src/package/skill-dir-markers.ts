/**
 * The markers a SKILL.md body writes for its own directory, replaced by the absolute skill
 * directory wherever a body is handed out (SPEC §4 Activate step 3, §1): `{baseDir}` (the seeds'
 * marker) and `${CLAUDE_SKILL_DIR}` (Claude Code's, which skills written for it use the same way:
 * `${CLAUDE_SKILL_DIR}/scripts/run.sh`). Other `${…}` variables stay as written.
 */
const MARKERS = ["{baseDir}", "${CLAUDE_SKILL_DIR}"] as const;

export function fillSkillDir(body: string, dir: string): string {
  let out = body;
  for (const marker of MARKERS) if (out.includes(marker)) out = out.split(marker).join(dir);
  return out;
}
