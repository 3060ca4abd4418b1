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

  constructor(private readonly context: RequirementContext) {}

  availability(skill: RegisteredSkill): Availability {
    const known = this.described.get(skill.name);
    if (known) return known;
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
        if (pending.has(name)) dependents.set(name, [...(dependents.get(name) ?? []), skill.name]);
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
    // What a dependency is missing, by name, within this one description.
    const memo = new Map<string, string[]>();
    const optionalMissing = bounded((requirements?.optional ?? []).flatMap((item) => this.unmet(item, [skill.name], memo)));
    if (this.runs.get(skill.name)) return { status: "available", optionalMissing };
    const missing = bounded(requirements?.root ? this.unmet(requirements.root, [skill.name], memo) : []);
    return { status: "unavailable", missing, optionalMissing };
  }

  /** Why `requirement` does not hold, in the words a person acts on; empty when it holds. */
  private unmet(requirement: Requirement, path: string[], memo: Map<string, string[]>): string[] {
    const runs = (name: string) => this.runs.get(name) === true;
    if (this.holds(requirement, runs)) return [];
    switch (requirement.kind) {
      case "env":
      case "binary":
        return [`${requirement.kind}: ${requirement.name}`];
      case "skill":
        return this.unmetSkill(requirement.name, path, memo);
      case "all":
        return distinct(requirement.items.flatMap((item) => this.unmet(item, path, memo)));
      case "any":
        return [`any of: ${requirement.items.map((item) => this.unmet(item, path, memo).join(" + ")).join(" | ")}`];
    }
  }

  private unmetSkill(name: string, path: string[], memo: Map<string, string[]>): string[] {
    const at = path.indexOf(name);
    if (at !== -1) return [`${CYCLE_PREFIX}${[...path.slice(at), name].join(" -> ")}`];
    const dependency = this.context.lookup(name);
    if (!dependency) return [`skill: ${name}`];
    if (dependency.manifest.requirementsError !== null) return [`skill: ${name} (its requirements are invalid)`];
    if (path.length >= MAX_NESTING) return [`skill: ${name} (unavailable)`];
    let inner = memo.get(name);
    if (!inner) {
      const root = dependency.manifest.requirements?.root;
      inner = root ? this.unmet(root, [...path, name], memo) : [];
      memo.set(name, inner);
    }
    // A cycle is reported as the cycle itself, not wrapped in every skill it passes through.
    const cycles = inner.filter((m) => m.startsWith(CYCLE_PREFIX));
    if (cycles.length > 0) return cycles;
    return [`skill: ${name} (needs ${inner.join(", ")})`];
  }
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
  const unique = distinct(reasons).map((reason) => (reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason));
  if (unique.length <= MAX_REASONS) return unique;
  return [...unique.slice(0, MAX_REASONS), `and ${unique.length - MAX_REASONS} more`];
}
