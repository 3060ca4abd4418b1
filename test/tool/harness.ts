/**
 * Test scaffolding for the tool: real skill directories on disk, served by the real runtime,
 * with `refreshSkills` counted so a test can tell how often a call rescanned.
 */
import fs from "node:fs";
import path from "node:path";
import { after } from "node:test";
import { createSkillRuntime, type SkillRuntime, type SkillRuntimeOptions } from "../../src/runtime.js";
import { createSkillTool } from "../../src/tool/skill-tool.js";
import type { SkillTool, SkillToolDeps } from "../../src/tool/types.js";
import { tempDir } from "../support/tmp.js";

export { CORPUS } from "../support/tmp.js";

/** A temp directory (by its real path, as skills record theirs), removed when the test file ends. */
export function realTempDir(prefix: string): string {
  return fs.realpathSync(tempDir(`${prefix}-`));
}

export interface SkillSpec {
  description?: string;
  body?: string;
  /** Extra frontmatter lines, written as given. */
  frontmatter?: string;
  /** Skill-relative path → content. */
  files?: Record<string, string | Buffer>;
}

/** Writes `root/name/SKILL.md` (and any files) and returns the skill directory. */
export function makeSkill(root: string, name: string, spec: SkillSpec = {}): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  const lines = ["---", `name: ${name}`, `description: ${spec.description ?? `Does ${name} things.`}`];
  if (spec.frontmatter) lines.push(spec.frontmatter);
  lines.push("---", "", spec.body ?? `# ${name}\n\nFollow these steps.`, "");
  fs.writeFileSync(path.join(dir, "SKILL.md"), lines.join("\n"));
  for (const [rel, content] of Object.entries(spec.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

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
