/**
 * A loaded skill registered from one source: the record a snapshot holds, with the source's
 * origin, label, owner and writability, and the trust rule applied (`authored-trust.ts`).
 */
import type { Diagnostic } from "../package/diagnostic.js";
import { oneLineShown } from "../package/display-text.js";
import type { SkillPackage } from "../package/types.js";
import { withholdsGrants, withoutGrants } from "./authored-trust.js";
import { defaultLabel } from "./sources.js";
import type { RegisteredSkill, SkillSource } from "./types.js";

/**
 * The package's parts are shared with the cached load, which `fromWire` froze all the way down,
 * so freezing the record itself keeps every snapshot's records unchangeable.
 */
export function registerSkill(skill: SkillPackage, source: SkillSource, sourceIndex: number): RegisteredSkill {
  // Only the package's own fields: `skill` may be the record another source registered.
  const { name, description, dir, skillFile, stamp, diagnostics } = skill;
  const withheld = withholdsGrants(source) ? withoutGrants(skill.manifest, skillFile) : null;
  const manifest = withheld?.manifest ?? skill.manifest;
  // A label is the host's text, but a config file found in a clone is anyone's: it heads a group
  // in the catalog and the `{}` answer, where a line break would start a section of its own
  // ("IMPORTANT: ..."). So it is one line, its breaks and hidden characters written out.
  const label = source.label !== undefined ? oneLineShown(source.label) : defaultLabel(source.origin);
  const record: RegisteredSkill = { name, description, dir, skillFile, manifest, stamp, diagnostics, origin: source.origin, label, sourceIndex };
  if (source.projectId !== undefined) record.projectId = source.projectId;
  if (source.agentId !== undefined) record.agentId = source.agentId;
  if (source.writable === true) record.writable = true;
  if (withheld) record.grantsWithheld = true;
  // A skill whose grants are withheld and that declared some is served rewritten (without them),
  // which only the extension's whole plan decides.
  if (skill.entryReady && !withheld?.warning) record.entryReady = true;
  if (skill.findings) record.findings = skill.findings;
  if (source.audit === "warn" || source.audit === "off") record.audit = source.audit;
  const frozen = Object.freeze(record);
  if (withheld?.warning) withheldWarnings.set(frozen, withheld.warning);
  return frozen;
}

/** The `authored_grants_ignored` warning of each record that lost its grants, reported with its source. */
const withheldWarnings = new WeakMap<RegisteredSkill, Diagnostic>();

/** The `authored_grants_ignored` warning of `record`, if it lost its grants. */
export function withheldWarningOf(record: RegisteredSkill): Diagnostic | undefined {
  return withheldWarnings.get(record);
}
