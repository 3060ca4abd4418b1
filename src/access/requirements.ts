/**
 * Requirement evaluation (SPEC §3.3): whether an allowed skill can run here. Env names are read
 * from the snapshot's environment (taken at load), binaries by `PATH` lookup, and a `skill:`
 * dependency must be allowed in the same scope and itself available. Missing items are named in
 * a form a person can act on: `env: API_KEY`, `binary: ffmpeg`, `skill: pdf`,
 * `skill cycle: a -> b -> a`, `any of: env: A | binary: b`.
 */
import type { Requirement } from "../package/types.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { Availability } from "./types.js";

export interface RequirementContext {
  /** The allowed skill of that name in the scope being evaluated (model-hidden ones included). */
  lookup(name: string): RegisteredSkill | undefined;
  env: Readonly<Record<string, string>>;
  hasBinary(name: string): boolean;
}

interface Check {
  met: boolean;
  missing: string[];
  /** Whether a cycle was met below: such a result depends on the path taken and is not cached. */
  cyclic: boolean;
}

const CYCLE_PREFIX = "skill cycle: ";

/** Evaluates skills of one scope, remembering results that do not depend on the evaluation path. */
export class RequirementEvaluator {
  private readonly settled = new Map<string, Availability>();

  constructor(private readonly context: RequirementContext) {}

  availability(skill: RegisteredSkill): Availability {
    return this.evaluate(skill, [skill.name]).availability;
  }

  private evaluate(skill: RegisteredSkill, stack: string[]): { availability: Availability; cyclic: boolean } {
    const known = this.settled.get(skill.name);
    if (known) return { availability: known, cyclic: false };
    const { manifest } = skill;
    if (manifest.requirementsError !== null) {
      const availability: Availability = { status: "invalid", message: manifest.requirementsError };
      this.settled.set(skill.name, availability);
      return { availability, cyclic: false };
    }
    const requirements = manifest.requirements;
    const root = requirements?.root ? this.check(requirements.root, stack) : { met: true, missing: [], cyclic: false };
    const optionalMissing: string[] = [];
    let cyclic = root.cyclic;
    for (const item of requirements?.optional ?? []) {
      const result = this.check(item, stack);
      cyclic ||= result.cyclic;
      if (!result.met) optionalMissing.push(...result.missing);
    }
    const availability: Availability = root.met
      ? { status: "available", optionalMissing }
      : { status: "unavailable", missing: root.missing, optionalMissing };
    if (!cyclic) this.settled.set(skill.name, availability);
    return { availability, cyclic };
  }

  private check(requirement: Requirement, stack: string[]): Check {
    switch (requirement.kind) {
      case "env": {
        const value = this.context.env[requirement.name];
        return leaf(value !== undefined && value !== "", `env: ${requirement.name}`);
      }
      case "binary":
        return leaf(this.context.hasBinary(requirement.name), `binary: ${requirement.name}`);
      case "skill":
        return this.checkSkill(requirement.name, stack);
      case "all": {
        const results = requirement.items.map((item) => this.check(item, stack));
        return {
          met: results.every((r) => r.met),
          missing: results.flatMap((r) => (r.met ? [] : r.missing)),
          cyclic: results.some((r) => r.cyclic),
        };
      }
      case "any": {
        const results = requirement.items.map((item) => this.check(item, stack));
        const met = results.some((r) => r.met);
        return {
          met,
          missing: met ? [] : [`any of: ${results.map((r) => r.missing.join(" + ")).join(" | ")}`],
          cyclic: results.some((r) => r.cyclic),
        };
      }
    }
  }

  private checkSkill(name: string, stack: string[]): Check {
    const at = stack.indexOf(name);
    if (at !== -1) return { met: false, missing: [`${CYCLE_PREFIX}${[...stack.slice(at), name].join(" -> ")}`], cyclic: true };
    const dependency = this.context.lookup(name);
    if (!dependency) return leaf(false, `skill: ${name}`);
    const { availability, cyclic } = this.evaluate(dependency, [...stack, name]);
    if (availability.status === "available") return { met: true, missing: [], cyclic };
    if (availability.status === "invalid") return { met: false, missing: [`skill: ${name} (its requirements are invalid)`], cyclic };
    // A cycle is reported as the cycle itself, not wrapped in every skill it passes through.
    const cycles = availability.missing.filter((m) => m.startsWith(CYCLE_PREFIX));
    if (cycles.length > 0) return { met: false, missing: cycles, cyclic };
    return { met: false, missing: [`skill: ${name} (needs ${availability.missing.join(", ")})`], cyclic };
  }
}

function leaf(met: boolean, label: string): Check {
  return { met, missing: met ? [] : [label], cyclic: false };
}
