/**
 * A call's arguments as a call record keeps them. Nothing replays arguments (the envelope is the
 * record of what happened), so the record holds a bounded copy: a caller sending megabytes as a
 * name must not make every call write megabytes to disk, and arguments nested thousands deep
 * must not overflow the stack of the JSON serialiser (or of `String()`, whose array `join`
 * recurses too) on their way into the log. The tool refuses all of those arguments anyway.
 */

/** Longest argument text a call record keeps whole. */
export const MAX_LOGGED_ARGS_CHARS = 8192;
/** Deepest nesting kept; no well-formed call is more than one level deep. */
export const MAX_LOGGED_ARGS_DEPTH = 32;
/** Values looked at before giving up on describing the arguments: bounds the walk below. */
const MAX_LOGGED_ARGS_NODES = 10_000;

/**
 * Arguments as they can be stored: JSON data as sent; past the bounds, or a value JSON cannot
 * hold, a description of what was sent instead; an oversized one as the start of its text.
 */
export function loggableArguments(args: unknown): unknown {
  try {
    const problem = shapeProblem(args);
    if (problem !== null) return { unserializable: problem };
    const text = JSON.stringify(args);
    if (text === undefined) return null;
    if (text.length > MAX_LOGGED_ARGS_CHARS) return { truncated: text.slice(0, MAX_LOGGED_ARGS_CHARS), chars: text.length };
    return JSON.parse(text) as unknown;
  } catch (error) {
    // A getter that throws, a `toJSON` that misbehaves, a BigInt: described, never thrown.
    return { unserializable: `arguments JSON cannot hold (${error instanceof Error ? error.name : "error"})` };
  }
}

/**
 * Why the arguments cannot be stored as they are, or null. Walked with an explicit stack and a
 * budget, so neither depth nor size can make this walk itself the problem; a cycle shows up as
 * depth past the bound.
 */
function shapeProblem(args: unknown): string | null {
  const stack: Array<[unknown, number]> = [[args, 0]];
  let seen = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_LOGGED_ARGS_DEPTH) return `arguments nested deeper than ${MAX_LOGGED_ARGS_DEPTH} levels`;
    const children = Array.isArray(value) ? value : Object.values(value);
    seen += children.length;
    if (seen > MAX_LOGGED_ARGS_NODES) return `arguments holding more than ${MAX_LOGGED_ARGS_NODES} values`;
    for (let i = 0; i < children.length; i++) stack.push([children[i], depth + 1]);
  }
  return null;
}
