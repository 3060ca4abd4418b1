/**
 * The `skill_manage` tool (SPEC §11): an agent keeps what it learns as a skill. Every write is
 * checked before anything is written (the resulting SKILL.md passes `validate`, a new name
 * shadows nothing the agent sees, every path is confined, the skill's source is writable, SKILL.md
 * is unchanged since this session last read or wrote it), done atomically under the skill's write
 * lock, and the source is rescanned before the call returns, so the next `skill` call serves it.
 */
import fs from "node:fs";
import path from "node:path";
import type { Scope, ScopedRegistry } from "../access/types.js";
import { SKILL_MANAGE_TOOL } from "../access/tool-policy.js";
import type { WritableSource } from "../access/writable-sources.js";
import { authoredSizeProblem, authoredSkillFileProblems, authoredTextProblem } from "../package/authored-text.js";
import { isInside } from "../package/confined-read.js";
import {
  createSkillFolder,
  deleteSkillFolder,
  readSkillText,
  removeSkillFile,
  sha256Of,
  withSkillWriteLock,
  writablePath,
  writeSkillFile,
  writeSkillMdFile,
  type WriteRefusal,
} from "../package/confined-write.js";
import type { RegisteredSkill } from "../registry/types.js";
import { failure, success, type Envelope, type ManagedData, type ToolError } from "./envelope.js";
import { parseSkillManageArguments, type SkillManageRequest } from "./manage-arguments.js";
import { SKILL_MANAGE_TOOL_DESCRIPTION, skillManageInputSchema } from "./manage-schema.js";
import type { SkillManageContext, SkillManageDeps, SkillManageInvocation, SkillManageTool } from "./manage-types.js";
import { renderEnvelopeText } from "./render.js";
import type { SkillFileVersion } from "./types.js";

type Answer = { envelope: Envelope<ManagedData>; skillFile?: SkillFileVersion; refresh?: number };

export function createSkillManageTool(deps: SkillManageDeps): SkillManageTool {
  const invoke = async (args: unknown, ctx: SkillManageContext = {}): Promise<SkillManageInvocation> => {
    const answer = await handle(deps, args, ctx);
    // Live at once: the source is rescanned before the call returns, so the next `{}` shows it.
    if (answer.refresh !== undefined) {
      try {
        await deps.refreshSource(answer.refresh);
      } catch {
        // A failed rescan leaves the last good snapshot serving; the write itself is done.
      }
    }
    const text = renderEnvelopeText(answer.envelope);
    return { envelope: answer.envelope, text, ...(answer.skillFile ? { skillFile: answer.skillFile } : {}) };
  };
  return {
    name: "skill_manage",
    description: SKILL_MANAGE_TOOL_DESCRIPTION,
    inputSchema: skillManageInputSchema(),
    invoke,
    call: async (args, ctx) => (await invoke(args, ctx)).envelope,
  };
}

/** Whether a scope is offered `skill_manage`: a writable source is open to it and its tool policy allows the tool. */
export function manageToolOffered(registry: ScopedRegistry, writable: readonly WritableSource[]): boolean {
  if (writable.length === 0) return false;
  return registry.toolEffective ? registry.toolEffective(SKILL_MANAGE_TOOL) : registry.toolAvailable;
}

async function handle(deps: SkillManageDeps, args: unknown, ctx: SkillManageContext): Promise<Answer> {
  const scope = scopeOf(ctx);
  const registry = await deps.resolveRegistry(scope);
  const writable = deps.writableSources(scope);
  // Checked before the arguments, as the `skill` tool does: when the tool is off, every call says so.
  if (!manageToolOffered(registry, writable)) return fail(unavailable());
  const request = parseSkillManageArguments(args);
  if ("code" in request) return fail(request);
  if (request.action === "create") return create(deps, scope, registry, writable, request);

  const found = await findSkill(deps, scope, registry, request.name);
  if (!found) return fail(notFound(request.name));
  const source = writableSourceOf(found.skill, writable);
  if (source === null) return fail(readOnly(found.skill.name));
  return change(found.skill, source, request, ctx, found.sourceRoots);
}

async function create(
  deps: SkillManageDeps,
  scope: Scope,
  registry: ScopedRegistry,
  writable: readonly WritableSource[],
  request: Extract<SkillManageRequest, { action: "create" }>,
): Promise<Answer> {
  const { name, content } = request;
  const textProblem = authoredTextProblem(content, "SKILL.md");
  if (textProblem) return fail(writeError(textProblem));
  const problems = authoredSkillFileProblems(content, name);
  if (problems.length > 0) return fail(invalidSkill(name, problems));
  // A skill dropped on disk since the last scan must be seen before a new name is judged free.
  try {
    await deps.refreshSkills();
  } catch {
    // The last good snapshot answers below.
  }
  const fresh = await deps.resolveRegistry(scope);
  const source = writable[0]!;
  // A project source is seen by every agent of the project: a name this agent's own policy hides
  // from it (a trusted global `deploy`) would still be shadowed for the others, who would get the
  // agent's skill in its place. So the name is judged as the project sees it, without any
  // agent's policy (the agent learns only that the name is taken, as for any skill it sees).
  const sharedWith = source.origin === "project" ? await deps.resolveRegistry(scope.projectId !== undefined ? { projectId: scope.projectId } : {}) : null;
  if (visible(fresh, name) || visible(registry, name) || (sharedWith !== null && visible(sharedWith, name))) {
    return fail({
      code: "skill_exists",
      message: `A skill named ${JSON.stringify(name)} already exists here; a new skill must not shadow it. Choose another name, or change that skill with edit or patch.`,
    });
  }
  const target = path.join(source.path, name);
  const locked = withSkillWriteLock(target, () => createSkillFolder(source.path, name, content));
  if (!locked.ok) return fail(busy(name, locked.holder));
  if (!locked.value.ok) {
    if (fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
      return fail({
        code: "skill_exists",
        message: `A folder named ${JSON.stringify(name)} is already in the writable source (it may not load as a skill); a new skill must not replace it. Choose another name.`,
      });
    }
    return fail(writeError(locked.value));
  }
  return { envelope: success({ name, status: "created" }), skillFile: { name, sha256: sha256Of(content) }, refresh: source.index };
}

/** Every action on an existing skill, under its write lock, in one synchronous step. */
function change(
  skill: RegisteredSkill,
  source: WritableSource,
  request: Exclude<SkillManageRequest, { action: "create" }>,
  ctx: SkillManageContext,
  sourceRoots: readonly string[],
): Answer {
  const skillFileName = path.basename(skill.skillFile);
  const locked = withSkillWriteLock(skill.dir, (): Answer => {
    switch (request.action) {
      case "edit":
        return writeSkillMd(skill, skillFileName, ctx, () => request.content, "edited");
      case "patch":
        if (request.filePath === null || isSkillFilePath(request.filePath, skillFileName)) {
          return writeSkillMd(skill, skillFileName, ctx, (current) => patched(current, request, skillFileName), "patched");
        }
        return patchFile(skill, request, sourceRoots);
      case "write_file":
        return writeFile(skill, request.filePath, request.content, sourceRoots);
      case "remove_file":
        return removeFile(skill, request.filePath, sourceRoots);
      case "delete": {
        const deleted = deleteSkillFolder(skill.dir);
        if (!deleted.ok) return fail(writeError(deleted));
        return { envelope: success({ name: skill.name, status: "deleted" }), skillFile: { name: skill.name, sha256: null } };
      }
    }
  });
  if (!locked.ok) return fail(busy(skill.name, locked.holder));
  return locked.value.envelope.ok ? { ...locked.value, refresh: source.index } : locked.value;
}

/**
 * Replaces SKILL.md with what `next` makes of the current text: refused as stale when the file is
 * not the version this session last read or wrote, and as invalid when the result fails `validate`.
 */
function writeSkillMd(
  skill: RegisteredSkill,
  skillFileName: string,
  ctx: SkillManageContext,
  next: (current: string) => string | ToolError,
  status: "edited" | "patched",
): Answer {
  const current = readSkillText(skill.dir, skillFileName);
  if (!current.ok) return fail(writeError(current));
  const known = ctx.knownSkillFile?.(skill.name) ?? undefined;
  if (known !== current.sha256) return fail(stale(skill.name, known === undefined));
  const text = next(current.text);
  if (typeof text !== "string") return fail(text);
  const textProblem = authoredTextProblem(text, "SKILL.md");
  if (textProblem) return fail(writeError(textProblem));
  const problems = authoredSkillFileProblems(text, path.basename(skill.dir));
  if (problems.length > 0) return fail(invalidSkill(skill.name, problems));
  const written = writeSkillMdFile(skill.dir, skillFileName, text);
  if (!written.ok) return fail(writeError(written));
  return { envelope: success({ name: skill.name, status }), skillFile: { name: skill.name, sha256: sha256Of(text) } };
}

function patchFile(skill: RegisteredSkill, request: Extract<SkillManageRequest, { action: "patch" }>, sourceRoots: readonly string[]): Answer {
  const checked = writablePath(request.filePath!);
  if (!checked.ok) return fail(writeError(checked));
  const current = readSkillText(skill.dir, checked.path, sourceRoots);
  if (!current.ok) return fail(writeError(current));
  const text = patched(current.text, request, checked.path);
  if (typeof text !== "string") return fail(text);
  const answer = writeFile(skill, checked.path, text, sourceRoots);
  return answer.envelope.ok ? { envelope: success({ name: skill.name, status: "patched", file_path: checked.path }) } : answer;
}

function writeFile(skill: RegisteredSkill, filePath: string, content: string, sourceRoots: readonly string[]): Answer {
  const checked = writablePath(filePath);
  if (!checked.ok) return fail(writeError(checked));
  const textProblem = authoredTextProblem(content, checked.path);
  if (textProblem) return fail(writeError(textProblem));
  const written = writeSkillFile(skill.dir, checked.path, content, sourceRoots);
  if (!written.ok) return fail(writeError(written));
  return { envelope: success({ name: skill.name, status: "file_written", file_path: checked.path }) };
}

function removeFile(skill: RegisteredSkill, filePath: string, sourceRoots: readonly string[]): Answer {
  const checked = writablePath(filePath);
  if (!checked.ok) return fail(writeError(checked));
  const removed = removeSkillFile(skill.dir, checked.path, sourceRoots);
  if (!removed.ok) return fail(writeError(removed));
  return { envelope: success({ name: skill.name, status: "file_removed", file_path: checked.path }) };
}

/** `old_string` replaced once (it must occur exactly once) or everywhere (`replace_all`, at least once). */
function patched(current: string, request: Extract<SkillManageRequest, { action: "patch" }>, shownPath: string): string | ToolError {
  const parts = current.split(request.oldString);
  const matches = parts.length - 1;
  if (matches === 0 || (matches > 1 && !request.replaceAll)) {
    return {
      code: "patch_failed",
      matches,
      message:
        matches === 0
          ? "`old_string` does not occur in the file; read the file again and copy the exact text to replace."
          : `\`old_string\` occurs ${matches} times; give more surrounding text so it occurs once, or set \`replace_all\`.`,
    };
  }
  // The result's size is known before it is built: a short old_string replaced everywhere by a
  // long new_string would otherwise build a string past memory (or V8's length limit, a throw).
  const size = Buffer.byteLength(current, "utf8") + matches * (Buffer.byteLength(request.newString, "utf8") - Buffer.byteLength(request.oldString, "utf8"));
  const tooLarge = authoredSizeProblem(size, shownPath);
  if (tooLarge) return writeError(tooLarge);
  return parts.join(request.newString);
}

/**
 * The skill the name means to this agent: the one it can see (model-hidden ones too: they are
 * still its skills), after one rescan on a miss, as the `skill` tool does. A skill it cannot see
 * (another agent's private one) is simply not found.
 */
async function findSkill(
  deps: SkillManageDeps,
  scope: Scope,
  registry: ScopedRegistry,
  name: string,
): Promise<{ skill: RegisteredSkill; sourceRoots: readonly string[] } | undefined> {
  const first = visible(registry, name);
  if (first) return { skill: first, sourceRoots: registry.sourceRoots ?? [] };
  try {
    await deps.refreshSkills();
  } catch {
    // The last good snapshot answers below.
  }
  const fresh = await deps.resolveRegistry(scope);
  const second = visible(fresh, name);
  return second ? { skill: second, sourceRoots: fresh.sourceRoots ?? [] } : undefined;
}

function visible(registry: ScopedRegistry, name: string): RegisteredSkill | undefined {
  return registry.get(name) ?? registry.all().find((skill) => skill.name === name);
}

/**
 * The writable source open to this scope that holds the skill, judged on real paths: a skill
 * reached through a link from a writable folder into another place is not writable there.
 */
function writableSourceOf(skill: RegisteredSkill, writable: readonly WritableSource[]): WritableSource | null {
  if (skill.writable !== true) return null;
  const source = writable.find((candidate) => candidate.index === skill.sourceIndex);
  if (source === undefined) return null;
  let root: string;
  try {
    root = fs.realpathSync.native(source.path);
  } catch {
    return null;
  }
  return isInside(root, skill.dir) ? source : null;
}

function isSkillFilePath(filePath: string, skillFileName: string): boolean {
  const normalised = filePath.replace(/\\/g, "/").split("/").filter((segment) => segment !== "" && segment !== ".");
  return normalised.length === 1 && (normalised[0] === "SKILL.md" || normalised[0] === skillFileName);
}

function fail(error: ToolError): Answer {
  return { envelope: failure(error) };
}

function unavailable(): ToolError {
  return { code: "tool_unavailable", message: "The skill_manage tool is not available here: no writable skill folder is open to you." };
}

function notFound(name: string): ToolError {
  return { code: "skill_not_found", message: `No skill named ${JSON.stringify(name)} is available to change. Call the skill tool with no arguments to list the skills.`, suggestions: [] };
}

function readOnly(name: string): ToolError {
  return {
    code: "read_only_skill",
    message: `Skill ${JSON.stringify(name)} is in a folder that is not open for writing, so it cannot be changed. Create a skill of another name instead.`,
  };
}

function stale(name: string, neverRead: boolean): ToolError {
  const why = neverRead ? "this conversation has not read its SKILL.md" : "its SKILL.md changed since this conversation last read or wrote it";
  return {
    code: "stale_skill",
    message: `Not changed: ${why}. Read it again with the skill tool (name ${JSON.stringify(name)}, file_path "SKILL.md") and make the change on what it holds now.`,
  };
}

function busy(name: string, holder: string): ToolError {
  return {
    code: "stale_skill",
    message: `Not changed: skill ${JSON.stringify(name)} is being changed right now (by ${holder}). Read its SKILL.md again with the skill tool and make the change on what it holds then.`,
  };
}

function invalidSkill(name: string, messages: string[]): ToolError {
  return {
    code: "invalid_skill",
    messages,
    message: `Not written: the SKILL.md of ${JSON.stringify(name)} would not pass validation:\n${messages.map((m) => `- ${m}`).join("\n")}`,
  };
}

function writeError(refusal: WriteRefusal | { reason: WriteRefusal["reason"]; message: string }): ToolError {
  return { code: "skill_write_error", reason: refusal.reason, message: refusal.message };
}

function scopeOf(ctx: SkillManageContext): Scope {
  const scope: Scope = {};
  if (ctx.projectId !== undefined) scope.projectId = ctx.projectId;
  if (ctx.agentId !== undefined) scope.agentId = ctx.agentId;
  return scope;
}
