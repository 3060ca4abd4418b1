/**
 * Test scaffolding for the tool: the real runtime over skill directories on disk, with
 * `refreshSkills` counted so a test can tell how often a call rescanned.
 */
import { after } from "node:test";
import { createSkillRuntime, type SkillRuntime, type SkillRuntimeOptions } from "../../src/runtime.js";
import { createSkillTool } from "../../src/tool/skill-tool.js";
import type { SkillTool, SkillToolDeps } from "../../src/tool/types.js";

export interface Harness {
  runtime: SkillRuntime;
  deps: SkillToolDeps;
  tool: SkillTool;
  refreshCalls(): number;
}

/**
 * A runtime over the given options (environment: only `PATH`, so requirement checks do not
 * depend on the machine), closed when the test file ends.
 */
export async function runtimeHarness(options: SkillRuntimeOptions): Promise<Harness> {
  const runtime = await createSkillRuntime({ env: { PATH: process.env.PATH ?? "" }, ...options });
  after(() => runtime.close());
  let refreshes = 0;
  const deps: SkillToolDeps = {
    resolveRegistry: (scope) => runtime.registry(scope),
    refreshSkills: () => {
      refreshes++;
      return runtime.refresh();
    },
  };
  return { runtime, deps, tool: createSkillTool(deps), refreshCalls: () => refreshes };
}

/** One global source directory. */
export function globalSource(root: string, label?: string): SkillRuntimeOptions {
  return { sources: [{ path: root, origin: "global", ...(label ? { label } : {}) }] };
}
