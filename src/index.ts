/**
 * skillport's public face. Everything a library user needs is exported here; the AI SDK
 * adapter has its own entry point (`skillport/ai-sdk`) because `ai` is an optional peer that
 * hosts without it must never be made to install.
 */
export { BundleCheckError, createSkillRuntime, type DiagnosticsOptions, type SkillRuntime, type SkillRuntimeOptions } from "./runtime.js";

// Skill packages
export { loadSkill, loadSkillSync, loadSkillFile } from "./package/load.js";
export { validateSkill, validateSkillSync } from "./package/validate.js";
export { readSkillBody, SkillBodyError } from "./package/body.js";
export { listResources, type ResourceListing } from "./package/resources.js";
export { splitFrontmatter } from "./package/split.js";
export type { Diagnostic, Severity } from "./package/diagnostic.js";
export type { FileStamp, LoadResult, Requirement, Requirements, SkillManifest, SkillPackage } from "./package/types.js";

// Registry and access
export { defaultSources } from "./registry/sources.js";
export { writeBundle, BundleError, type BundleResult } from "./registry/bundle-write.js";
export { verifyBundle, type BundleCheck } from "./registry/bundle-verify.js";
export { BUNDLE_LOCK_FILE, BUNDLE_SKILLS_DIR, type BundleLock, type LockedFile } from "./registry/bundle-lock.js";
export { loadedSkillsDigest, LOADED_DIGEST_PREFIX } from "./registry/registry-digest.js";
export {
  installSkills,
  installLockedSkills,
  updateSkills,
  removeSkills,
  verifySkills,
  listSourceSkills,
  lockedFolders,
  type InstallOptions,
  type InstallReport,
  type SkillOutcome,
  type SkillStatus,
  type SourceListing,
} from "./install/operations.js";
export { installTarget, folderTarget, targetsOfLock, LOCKFILE_NAME, type InstallTarget, type AgentFolder, type TargetChoice } from "./install/targets.js";
export { readSkillsLock, parseSkillsLock, skillsLockText, type LockedSkill, type SkillsLock } from "./install/lockfile.js";
export { parseSource, type SourceSpec } from "./install/source-spec.js";
export { publishSite, type PublishReport, type PublishedSkill } from "./install/publish.js";
export { InstallError } from "./install/install-error.js";
export { fileDigest, packageDigest, digestOfPackage, type DigestedFile } from "./package/package-digest.js";
export type { Origin, RegisteredSkill, RegistrySnapshot, SkillSource } from "./registry/types.js";
export { PROJECT_DEFAULT_ALLOWED_TOOLS, SKILL_MANAGE_TOOL, SKILL_TOOL } from "./access/tool-policy.js";
export { writableSourcesOf, type WritableSource } from "./access/writable-sources.js";
export type { AgentPolicy, Availability, ProjectPolicy, Scope, ScopedRegistry, SkillInfo } from "./access/types.js";

// The tool
export { createSkillTool } from "./tool/skill-tool.js";
export { displayOf } from "./tool/display.js";
export { renderEnvelopeText } from "./tool/render.js";
export type * from "./tool/envelope.js";
export type {
  ActivateSkillHook,
  SkillTool,
  SkillToolContext,
  SkillToolDefinition,
  SkillToolDeps,
  SkillToolDisplay,
  SkillToolInvocation,
} from "./tool/types.js";

// Writing skills (SPEC §11)
export { createSkillManageTool } from "./tool/manage-tool.js";
export type {
  SkillManageContext,
  SkillManageDeps,
  SkillManageInputSchema,
  SkillManageInvocation,
  SkillManageTool,
  SkillManageToolDefinition,
} from "./tool/manage-types.js";
export { MAX_AUTHORED_FILE_BYTES } from "./package/limits.js";

// Sessions
export { createSession, restoreSession, type Session, type SessionHost, type SessionOptions } from "./session/session.js";
export { skillToolActivation, type SkillActivation } from "./session/activation.js";
export { readSessionLog } from "./session/log.js";
export {
  memoryStore,
  scopePrincipal,
  StoreCancelledError,
  StoreUnavailableError,
  DEFAULT_STORE_TIMEOUT_MS,
  type PruneResult,
  type AppendOptions,
  type AppendResult,
  type SessionKey,
  type SessionStore,
  type StoredRecord,
  type StoreMessage,
  type StoreRead,
} from "./session/store.js";
export { fileStore } from "./session/store-file.js";
export { openSessionStore } from "./session/open-store.js";
export {
  createStoredSession,
  openStoredSession,
  SessionGoneError,
  type StoredCheckpoint,
  type StoredSession,
  type StoredSessionOptions,
  type StoredCallOptions,
} from "./session/stored-session.js";
export { statsFromRecords, readStatsDir, type SkillStats } from "./session/stats.js";

// Prompt text
export { renderCatalog, type CatalogOptions, type CatalogFormat } from "./prompt/catalog.js";
export { skillsRefPrompt } from "./prompt/skills-ref.js";

// Plain tool definitions for other SDKs
export { openAIToolDefinition, type OpenAIToolDefinition } from "./adapters/openai.js";
export { anthropicToolDefinition, type AnthropicToolDefinition } from "./adapters/anthropic.js";
