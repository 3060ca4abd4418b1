/**
 * The YAML dialect of the reference validator `skills-ref`: strictyaml 1.6 over its bundled
 * ruamel.yaml 0.17, reproduced so `validate` and `prompt --skills-ref` refuse what it refuses
 * with its exact words (ruamel's `mapping values are not allowed here`, strictyaml's `Found ugly
 * disallowed JSONesque flow mapping ...`, each with its `in "<unicode string>", line L, column
 * C:` context and caret line).
 *
 * The scanner, parser and composer follow ruamel's round-trip classes step for step, because the
 * text of an error depends on exactly when each token is fetched: which of two problems is met
 * first, and where the reader stands when it is. Positions count code points, as Python does.
 * Every scalar is text (strictyaml has no other type); flow collections, tags and anchors are
 * refused when the parser first looks at them, an alias is an undefined alias, a duplicate key or
 * sibling mappings at different indentation are refused while the mapping is built.
 *
 * Loading does not use this dialect: it is lenient YAML 1.2 (yaml.ts) and only warns where this
 * dialect would refuse (`strictYamlProblem`).
 *
 * The stages, each a module of this folder as ruamel keeps them: `marks` (the reader's view of
 * the text and where a message points), `scanner` (tokens), `parser` (events), `composer`
 * (nodes), `construct` (strictyaml's refusals while the value is built), `error-text` (how the
 * reference words what it refuses), and `flow-refusal` (the shortcut to the commonest refusal).
 * This module is the face: nothing outside the folder imports a stage.
 */
import { Composer } from "./composer.js";
import { construct } from "./construct.js";
import { MarkedError, ReferenceCrash } from "./error-text.js";
import { leadingFlowRefusal } from "./flow-refusal.js";
import { NON_PRINTABLE } from "./marks.js";
import { Parser } from "./parser.js";
import { Scanner } from "./scanner.js";
import type { StrictYamlResult } from "./types.js";

export { pythonRepr } from "./error-text.js";
export { MergeMarker, type StrictMap, type StrictValue, type StrictYamlResult } from "./types.js";

/** Loads frontmatter text the way `strictyaml.load` does (the reference's parser). */
export function loadStrictYaml(text: string): StrictYamlResult {
  const bad = NON_PRINTABLE.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0) ?? 0;
    const before = text.slice(0, bad.index).split("\n");
    const where = `line ${before.length}, column ${[...(before.at(-1) ?? "")].length + 1}`;
    return { ok: false, crash: `control character U+${code.toString(16).toUpperCase().padStart(4, "0")} at ${where} is not allowed in YAML` };
  }
  try {
    const scanner = new Scanner(text);
    const node = new Composer(new Parser(scanner)).getSingleNode();
    if (node === null) return { ok: true, value: null };
    return { ok: true, value: construct(node) };
  } catch (error) {
    if (error instanceof MarkedError) return { ok: false, message: error.text() };
    if (error instanceof ReferenceCrash) return { ok: false, crash: error.message };
    if (error instanceof RangeError) return { ok: false, crash: "it is nested too deeply" };
    throw error;
  }
}

/**
 * Why the reference would refuse this frontmatter's YAML, in one line, or null when it reads it.
 * For the loader's warning: the skill loads, but `validate` (and the reference) will say this.
 * `firstLine` is the SKILL.md line the text starts on.
 */
export function strictYamlProblem(text: string, firstLine = 1): string | null {
  const refusal = leadingFlowRefusal(text);
  if (refusal !== null) return `${FLOW_REFUSAL} (SKILL.md line ${refusal.line + firstLine}, column ${refusal.column + 2})`;
  return problemLine(loadStrictYaml(text), firstLine);
}

const FLOW_REFUSAL = "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)";

/** The one line `strictYamlProblem` makes of a full read's result (exported for the test that holds its shortcut to the full read). */
export function problemLine(result: StrictYamlResult, firstLine = 1): string | null {
  if (result.ok) return null;
  if (result.crash !== undefined) return result.crash;
  const lines = result.message.split("\n");
  // The problem is the last line that is neither a mark (`  in ...`) nor a snippet under one.
  const problem = lines.filter((line) => line !== "" && !line.startsWith(" ")).at(-1) ?? lines[0] ?? "";
  const marks = [...result.message.matchAll(/line (\d+), column (\d+):/g)];
  const where = marks.at(-1);
  return where ? `${problem} (SKILL.md line ${Number(where[1]) + firstLine - 1}, column ${where[2]})` : problem;
}
