/**
 * The Claude Code fields read into the manifest (SPEC §1 table): leniently, with the body's
 * `$ARGUMENTS` found from the file's bytes at load (the body is not decoded then), carried
 * unchanged across the worker boundary, and the argument substitution a prompt applies.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { catalogDescription, DEFAULT_INVOCATION } from "../../src/package/invocation-fields.js";
import { loadSkillFile, loadSkillSync } from "../../src/package/load.js";
import { argumentWords, substituteArguments } from "../../src/package/prompt-arguments.js";
import { fromWire, toWire } from "../../src/registry/skill-wire.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";

const root = realTempDir("skillport-invocation");

test("the fields load into manifest.invocation, and out of `extra`", () => {
  const dir = makeSkill(root, "full", {
    frontmatter: 'argument-hint: "[issue] [priority]"\narguments:\n  - issue\n  - priority\nuser-invocable: false\nwhen_to_use: "  When asked.  "',
  });
  const { skill, diagnostics } = loadSkillSync(dir);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(skill!.manifest.invocation, {
    argumentHint: "[issue] [priority]",
    argumentNames: ["issue", "priority"],
    takesArguments: true,
    userInvocable: false,
    whenToUse: "When asked.",
  });
  assert.deepEqual(skill!.manifest.extra, {});
});

test("a skill with none of them, and no $ARGUMENTS, shares the one default object", () => {
  const { skill } = loadSkillSync(makeSkill(root, "plain", { body: "Costs $5 and $ARGUMENT." }));
  assert.equal(skill!.manifest.invocation, DEFAULT_INVOCATION);
});

test("$ARGUMENTS in the body is found from the bytes on load, and from the text when given the whole file", () => {
  const dir = makeSkill(root, "templated", { body: "Fix $ARGUMENTS[0]." });
  assert.equal(loadSkillSync(dir).skill!.manifest.invocation.takesArguments, true);
  const text = fs.readFileSync(path.join(dir, "SKILL.md"), "utf8");
  assert.equal(loadSkillFile(path.join(dir, "SKILL.md"), dir, text, { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 }).skill!.manifest.invocation.takesArguments, true);
  const inFrontmatter = makeSkill(root, "quoted", { description: "Mentions $ARGUMENTS here only.", body: "Nothing to put in." });
  assert.equal(loadSkillSync(inFrontmatter).skill!.manifest.invocation.takesArguments, false, "only the body counts");
});

test("wrong types warn and load: a list hint is read as written, bad names are dropped, a non-boolean user-invocable is ignored", () => {
  const dir = makeSkill(root, "sloppy", { frontmatter: "argument-hint: [issue]\narguments: [ok-name, '7', 'two words', 3]\nuser-invocable: nope\nwhen_to_use: 5" });
  const { skill, diagnostics } = loadSkillSync(dir);
  assert.ok(skill, "still loads");
  const invocation = skill.manifest.invocation;
  assert.equal(invocation.argumentHint, "[issue]");
  assert.deepEqual(invocation.argumentNames, ["ok-name"]);
  assert.equal(invocation.userInvocable, true);
  assert.equal(invocation.whenToUse, "5");
  assert.deepEqual(
    diagnostics.filter((d) => d.code !== "yaml_reference_refused").map((d) => [d.severity, d.code]),
    Array.from({ length: 6 }, () => ["warning", "field_type"]),
  );
});

test("the fields cross the worker boundary unchanged, and the default stays the shared object", () => {
  for (const name of ["full", "plain", "templated"]) {
    const dir = path.join(root, name);
    const result = loadSkillSync(dir);
    const crossed = fromWire(structuredClone(toWire(result)), dir, result.skill!.skillFile);
    assert.deepEqual(crossed.skill!.manifest.invocation, result.skill!.manifest.invocation, name);
    if (name === "plain") assert.equal(crossed.skill!.manifest.invocation, DEFAULT_INVOCATION);
    else assert.ok(Object.isFrozen(crossed.skill!.manifest.invocation.argumentNames));
  }
});

test("the catalog's description joins when_to_use as Claude Code does", () => {
  assert.equal(catalogDescription("Does X.", { ...DEFAULT_INVOCATION, whenToUse: "When Y." }), "Does X. - When Y.");
  assert.equal(catalogDescription("Does X.", DEFAULT_INVOCATION), "Does X.");
});

test("words split as a shell splits: quotes stripped, backslashes read, operators and comments kept as typed", () => {
  assert.deepEqual(argumentWords(`a "b c" 'd e' f\\ g`), ["a", "b c", "d e", "f g"]);
  assert.deepEqual(argumentWords("#123 *.ts"), ["#123", "*.ts"]);
  assert.deepEqual(argumentWords("x *.ts a | b"), ["x", "*.ts", "a", "|", "b"]);
  assert.deepEqual(argumentWords("$HOME ${X}"), ["$HOME", "$X"]);
  assert.deepEqual(argumentWords(`it's "open`), ["it's", `"open`]);
  assert.deepEqual(argumentWords("   "), []);
});

test("substitution is one pass: a value is put in as typed and never read again", () => {
  const body = "0=$0 1=$1 all=$ARGUMENTS name=$who";
  assert.equal(substituteArguments(body, ["who"], { text: "'$1' '$&' '$ARGUMENTS'" }), "0=$1 1=$& all='$1' '$&' '$ARGUMENTS' name=$1");
  assert.equal(substituteArguments("$whose $who[0] $who", ["who"], { text: "me" }), "$whose $who[0] me", "a name is not the start of a longer word");
  assert.equal(substituteArguments("$10 $1x $1", [], { text: "a b" }), "$10 $1x b");
  assert.equal(substituteArguments("Twice: $ARGUMENTS / $ARGUMENTS", [], { text: "x y" }), "Twice: x y / x y");
  assert.equal(substituteArguments("$a-b $a", ["a", "a-b"], { text: "one two" }), "two one", "the longer name first");
});

test("with no placeholder the text is appended, only when there is text", () => {
  assert.equal(substituteArguments("Body.", [], { text: "x" }), "Body.\n\nARGUMENTS: x");
  assert.equal(substituteArguments("Body.", [], { text: "  " }), "Body.");
  assert.equal(substituteArguments("Body.", [], {}), "Body.");
  assert.equal(substituteArguments("Body $3.", [], { text: "x" }), "Body $3.", "a placeholder left as written is still a placeholder");
});
