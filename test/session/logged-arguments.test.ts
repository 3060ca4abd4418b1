import assert from "node:assert/strict";
import { test } from "node:test";
import { loggableArguments } from "../../src/session/logged-arguments.js";

/** Arguments whose JSON text is exactly `chars` characters long. */
function argumentsOfJsonLength(chars: number): { name: string } {
  const padding = chars - JSON.stringify({ name: "" }).length;
  const args = { name: "n".repeat(padding) };
  assert.equal(JSON.stringify(args).length, chars);
  return args;
}

test("arguments of 8,192 characters of JSON are logged whole; one character more is logged cut, with its full length", () => {
  const atLimit = argumentsOfJsonLength(8192);
  assert.deepEqual(loggableArguments(atLimit), atLimit);
  const over = argumentsOfJsonLength(8193);
  assert.deepEqual(loggableArguments(over), { truncated: JSON.stringify(over).slice(0, 8192), chars: 8193 });
});
