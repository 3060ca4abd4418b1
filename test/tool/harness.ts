/**
 * Test scaffolding for the tool: real skill directories on disk, loaded with the real loader,
 * and a small scoped registry over them. The registry here stands in for the runtime only
 * until the runtime exists; the tool sees nothing but the `ScopedRegistry` contract.
 */
import fs from "node:fs";
import path from "node:path";
import type { Availability, Scope, ScopedRegistry, SkillInfo } from "../../src/access/types.js";
import { loadSkillSync } from "../../src/package/load.js";
import type { Origin, RegisteredSkill } from "../../src/registry/types.js";
import type { SkillToolDeps } from "../../src/tool/types.js";
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

export interface TestSource {
  path: string;
  origin: Origin;
  label?: string;
}

export interface TestPolicy {
  toolAvailable?: boolean;
  /** Names outside the scope (not allowed). */
  denied?: string[];
  /** Name → missing requirement items. */
  unavailable?: Record<string, string[]>;
  /** Name → message of malformed requirements. */
  invalid?: Record<string, string>;
}

const LABELS: Record<Origin, string> = { agent: "Agent skills", project: "Project skills", global: "Global skills", bundled: "Bundled skills" };
const RANK: Record<Origin, number> = { agent: 0, project: 1, global: 2, bundled: 3 };

/** Scans each source's subdirectories with the real loader; first found wins within precedence. */
function scan(sources: TestSource[]): RegisteredSkill[] {
  const byName = new Map<string, RegisteredSkill>();
  const ordered = sources.map((source, sourceIndex) => ({ source, sourceIndex })).sort((a, b) => RANK[a.source.origin] - RANK[b.source.origin] || a.sourceIndex - b.sourceIndex);
  for (const { source, sourceIndex } of ordered) {
    for (const entry of fs.readdirSync(source.path, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const { skill } = loadSkillSync(path.join(source.path, entry.name));
      if (!skill || byName.has(skill.name)) continue;
      byName.set(skill.name, { ...skill, origin: source.origin, label: source.label ?? LABELS[source.origin], sourceIndex });
    }
  }
  return [...byName.values()];
}

export interface Harness {
  deps: SkillToolDeps;
  refreshCalls(): number;
  setPolicy(policy: TestPolicy): void;
}

export function harness(sources: TestSource[], initial: TestPolicy = {}): Harness {
  let snapshot = scan(sources);
  let version = 1;
  let policy = initial;
  let refreshes = 0;
  const resolve = (_scope: Scope): ScopedRegistry => {
    const visible = snapshot
      .filter((skill) => !(policy.denied ?? []).includes(skill.name) && !skill.manifest.disableModelInvocation)
      .sort((a, b) => RANK[a.origin] - RANK[b.origin] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const info = (skill: RegisteredSkill): SkillInfo => ({ name: skill.name, description: skill.description, origin: skill.origin, label: skill.label, dir: skill.dir });
    return {
      toolAvailable: policy.toolAvailable ?? true,
      version,
      list: () => visible.map(info),
      get: (name) => visible.find((skill) => skill.name === name),
      all: () => [...visible],
      availability: (name): Availability | undefined => {
        if (!visible.some((skill) => skill.name === name)) return undefined;
        const missing = policy.unavailable?.[name];
        if (missing) return { status: "unavailable", missing, optionalMissing: [] };
        const invalid = policy.invalid?.[name];
        if (invalid) return { status: "invalid", message: invalid };
        return { status: "available", optionalMissing: [] };
      },
    };
  };
  return {
    deps: {
      resolveRegistry: resolve,
      refreshSkills: async () => {
        refreshes++;
        snapshot = scan(sources);
        version++;
      },
    },
    refreshCalls: () => refreshes,
    setPolicy: (next) => {
      policy = next;
    },
  };
}
