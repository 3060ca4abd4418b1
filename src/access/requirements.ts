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

const CYCLE_PREFIX = "skill cycle: ";

/**
 * How deep one message names the reasons behind a missing skill (`skill: a (needs skill: b
 * (needs …))`); deeper, a dependency is just `unavailable`. A chain of skills written to be
 * long would otherwise give a message as long as the chain.
 */
const MAX_NESTING = 6;
/** Reasons kept per list, and characters per reason: the list reaches the model. */
const MAX_REASONS = 20;
const MAX_REASON_CHARS = 1000;

/**
 * Evaluates skills of one scope. Whether a skill can run is the least fixed point over its
 * `skill:` dependencies: nothing runs until its requirements hold with what already runs.
 * Requirements combine only with `all` and `any` (no negation), so a skill that runs keeps
 * running as others start, and a cycle runs only if it is satisfied without itself. That answer
 * does not depend on where the evaluation started, so it is computed once per skill, without
 * recursion over the dependency chain: evaluating a path at a time was exponential in time and
 * message size, and a chain of 1,900 skills overflowed the stack.
 */
export class RequirementEvaluator {
  private readonly runs = new Map<string, boolean>();
  private readonly described = new Map<string, Availability>();
  /** What a dependency met at a given nesting depth is missing, kept when no path shaped it. */
  private readonly explained = new Map<string, Explained>();

  constructor(private readonly context: RequirementContext) {}

  availability(skill: RegisteredSkill): Availability {
    const known = this.described.get(skill.name);
    if (known) return known;
    // Most skills require nothing: they run, with nothing optional missing, and need none of
    // the bookkeeping below (a listing of 10,000 skills asks about each of them).
    const { manifest } = skill;
    if (manifest.requirements === null && manifest.requirementsError === null) {
      this.runs.set(skill.name, true);
      const available: Availability = { status: "available", optionalMissing: [] };
      this.described.set(skill.name, available);
      return available;
    }
    this.solve(skill);
    const availability = this.describe(skill);
    this.described.set(skill.name, availability);
    return availability;
  }

  private solve(root: RegisteredSkill): void {
    // The skills reachable from `root` through `skill:` requirements and not settled before.
    const pending = new Map<string, RegisteredSkill>();
    const todo: RegisteredSkill[] = [root];
    while (todo.length > 0) {
      const skill = todo.pop()!;
      if (pending.has(skill.name) || this.runs.has(skill.name)) continue;
      pending.set(skill.name, skill);
      for (const name of dependencyNames(skill)) {
        const dependency = this.context.lookup(name);
        if (dependency) todo.push(dependency);
      }
    }
    const dependents = new Map<string, string[]>();
    for (const skill of pending.values()) {
      for (const name of dependencyNames(skill)) {
        if (!pending.has(name)) continue;
        // Pushed in place: copying the list per edge was quadratic for a skill many others need.
        const list = dependents.get(name);
        if (list) list.push(skill.name);
        else dependents.set(name, [skill.name]);
      }
    }
    const running = new Set<string>();
    const runsNow = (name: string): boolean => this.runs.get(name) ?? running.has(name);
    // Each skill is checked once, and again only when a dependency starts to run.
    const queue = [...pending.keys()];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (running.has(name)) continue;
      const { manifest } = pending.get(name)!;
      if (manifest.requirementsError !== null) continue;
      if (manifest.requirements?.root && !this.holds(manifest.requirements.root, runsNow)) continue;
      running.add(name);
      for (const dependent of dependents.get(name) ?? []) if (!running.has(dependent)) queue.push(dependent);
    }
    for (const name of pending.keys()) this.runs.set(name, running.has(name));
  }

  private holds(requirement: Requirement, runs: (name: string) => boolean): boolean {
    switch (requirement.kind) {
      case "env": {
        const value = this.context.env[requirement.name];
        return value !== undefined && value !== "";
      }
      case "binary":
        return this.context.hasBinary(requirement.name);
      case "skill":
        return this.context.lookup(requirement.name) !== undefined && runs(requirement.name);
      case "all":
        return requirement.items.every((item) => this.holds(item, runs));
      case "any":
        return requirement.items.some((item) => this.holds(item, runs));
    }
  }

  private describe(skill: RegisteredSkill): Availability {
    const { manifest } = skill;
    if (manifest.requirementsError !== null) return { status: "invalid", message: manifest.requirementsError };
    const requirements = manifest.requirements;
    const budget = { expansions: MAX_EXPANSIONS };
    const optional = (requirements?.optional ?? []).map((item) => this.unmet(item, [skill.name], budget).reasons);
    const optionalMissing = bounded(optional.flat());
    if (this.runs.get(skill.name)) return { status: "available", optionalMissing };
    const missing = bounded(requirements?.root ? this.unmet(requirements.root, [skill.name], budget).reasons : []);
    return { status: "unavailable", missing, optionalMissing };
  }

  /**
   * Why `requirement` does not hold, in the words a person acts on; no reasons when it holds.
   * Built within bounds as it goes (reasons per list, characters per reason, nesting, and the
   * dependencies one description may look into): trimming only the finished text let a tree of
   * skills that each need all the later ones build gigabytes first.
   */
  private unmet(requirement: Requirement, path: string[], budget: Budget): Explained {
    if (this.holds(requirement, this.runsFinally)) return NOTHING_MISSING;
    switch (requirement.kind) {
      case "env":
      case "binary":
        return { reasons: [`${requirement.kind}: ${requirement.name}`], exact: true };
      case "skill":
        return this.unmetSkill(requirement.name, path, budget);
      case "all": {
        const reasons = new Set<string>();
        let exact = true;
        for (const item of requirement.items) {
          if (reasons.size > MAX_REASONS) break;
          const inner = this.unmet(item, path, budget);
          exact &&= inner.exact;
          for (const reason of inner.reasons) reasons.add(reason);
        }
        return { reasons: [...reasons], exact };
      }
      case "any": {
        const parts: string[] = [];
        let exact = true;
        for (const item of requirement.items.slice(0, MAX_REASONS)) {
          const inner = this.unmet(item, path, budget);
          exact &&= inner.exact;
          parts.push(clip(inner.reasons.join(" + ")));
        }
        const more = requirement.items.length > MAX_REASONS ? " | …" : "";
        return { reasons: [clip(`any of: ${parts.join(" | ")}${more}`)], exact };
      }
    }
  }

  private unmetSkill(name: string, path: string[], budget: Budget): Explained {
    const at = path.indexOf(name);
    // The cycle is named as this path meets it, so the answer is not kept for other paths.
    if (at !== -1) return { reasons: [`${CYCLE_PREFIX}${[...path.slice(at), name].join(" -> ")}`], exact: false };
    const dependency = this.context.lookup(name);
    if (!dependency) return { reasons: [`skill: ${name}`], exact: true };
    if (dependency.manifest.requirementsError !== null) return { reasons: [`skill: ${name} (its requirements are invalid)`], exact: true };
    if (path.length >= MAX_NESTING) return { reasons: [`skill: ${name} (unavailable)`], exact: true };
    const key = `${path.length}\u0000${name}`;
    const known = this.explained.get(key);
    if (known) return known;
    if (budget.expansions <= 0) return { reasons: [`skill: ${name} (unavailable)`], exact: false };
    budget.expansions -= 1;
    const root = dependency.manifest.requirements?.root;
    const inner = root ? this.unmet(root, [...path, name], budget) : NOTHING_MISSING;
    // A cycle is reported as the cycle itself, not wrapped in every skill it passes through.
    const cycles = inner.reasons.filter((m) => m.startsWith(CYCLE_PREFIX));
    const result: Explained = {
      reasons: cycles.length > 0 ? cycles : [clip(`skill: ${name} (needs ${inner.reasons.join(", ")})`)],
      exact: inner.exact,
    };
    // Kept for every description that meets this skill at this depth, unless it depended on
    // the path (a cycle) or on the budget left.
    if (result.exact) this.explained.set(key, result);
    return result;
  }

  private readonly runsFinally = (name: string): boolean => this.runs.get(name) === true;
}

/** Reasons, and whether they are the same for every path that reaches them. */
interface Explained {
  reasons: string[];
  exact: boolean;
}

interface Budget {
  expansions: number;
}

const NOTHING_MISSING: Explained = Object.freeze({ reasons: [], exact: true }) as Explained;

/** Dependencies one description looks into before naming the rest just `unavailable`. */
const MAX_EXPANSIONS = 200;

function clip(reason: string): string {
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
}

/** Every skill name a skill's requirements mention, required or optional. */
function dependencyNames(skill: RegisteredSkill): string[] {
  const names: string[] = [];
  const visit = (requirement: Requirement): void => {
    if (requirement.kind === "skill") names.push(requirement.name);
    else if (requirement.kind === "all" || requirement.kind === "any") requirement.items.forEach(visit);
  };
  const requirements = skill.manifest.requirements;
  if (requirements?.root) visit(requirements.root);
  for (const item of requirements?.optional ?? []) visit(item);
  return names;
}

function distinct(reasons: string[]): string[] {
  return [...new Set(reasons)];
}

/** At most MAX_REASONS distinct reasons of at most MAX_REASON_CHARS each. */
function bounded(reasons: string[]): string[] {
  const unique = distinct(reasons).map(clip);
  if (unique.length <= MAX_REASONS) return unique;
  return [...unique.slice(0, MAX_REASONS), "and more"];
}
