/**
 * Session test scaffolding: real skill directories in temp folders, served by a real runtime
 * whose `session()` opens the sessions under test.
 */
import { after } from "node:test";
import { createSkillRuntime, type SkillRuntime, type SkillRuntimeOptions } from "../../src/runtime.js";
import type { Session, SessionHost, SessionOptions } from "../../src/session/session.js";
import { makeSkill, type SkillSpec } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";

/** A fresh temp directory holding the given skills. */
export function skillRoot(skills: Record<string, SkillSpec>): string {
  const root = realTempDir("skillport-skills");
  for (const [name, spec] of Object.entries(skills)) makeSkill(root, name, spec);
  return root;
}

export interface TestRuntime {
  root: string;
  cwd: string;
  runtime: SkillRuntime;
}

/** A runtime over one global source holding `skills`, closed when the test file ends. */
export async function runtimeOver(
  skills: Record<string, SkillSpec>,
  options: Partial<SkillRuntimeOptions> = {},
): Promise<TestRuntime> {
  const root = skillRoot(skills);
  const cwd = options.cwd ?? realTempDir("skillport-cwd");
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, cwd, ...options });
  after(() => runtime.close());
  return { root, cwd, runtime };
}

/** A runtime over `skills` and one in-memory session of it. */
export async function sessionOver(
  skills: Record<string, SkillSpec>,
  options: SessionOptions = {},
  env: Record<string, string> = {},
): Promise<TestRuntime & { session: Session }> {
  const opened = await runtimeOver(skills, { env });
  return { ...opened, session: opened.runtime.session({ log: false, ...options }) };
}

/** The host a runtime gives its sessions, rebuilt from its public face for `restoreSession`. */
export function hostOf(runtime: SkillRuntime, cwd: string): SessionHost {
  return {
    resolveRegistry: (scope) => runtime.registry(scope),
    refresh: () => runtime.refresh(),
    env: () => runtime.snapshot().env,
    cwd,
  };
}
