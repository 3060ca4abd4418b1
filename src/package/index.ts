export type { Diagnostic, Severity } from "./diagnostic.js";
export type { FileStamp, LoadResult, Requirement, Requirements, SkillInvocation, SkillManifest, SkillPackage } from "./types.js";
export { loadSkill, loadSkillFile, loadSkillSync } from "./load.js";
export { readSkillBody, SkillBodyError } from "./body.js";
export { listResources, hasResources, type ResourceListing } from "./resources.js";
export { validateSkill, validateSkillSync } from "./validate.js";
export { splitFrontmatter } from "./split.js";
export { envNames } from "./requirements.js";
