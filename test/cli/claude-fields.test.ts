/**
 * The Claude Code fields (`argument-hint`, `arguments`, `user-invocable`, `when_to_use`) as
 * `show` and `list --json` report them, and `validate` still reproducing the reference, which
 * calls them unexpected fields (SPEC §1).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonOf, runCli } from "./cli-process.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";

const root = realTempDir("skillport-cli-claude-fields");
makeSkill(root, "fix-issue", {
  description: "Fixes one issue.",
  frontmatter: 'argument-hint: "[issue] [priority]"\narguments: issue priority\nuser-invocable: false\nwhen_to_use: When an issue number is given.',
  body: "Fix $issue.",
});
makeSkill(root, "templated", { description: "Takes text through its body only.", body: "Do $ARGUMENTS." });
const opts = { env: { ...process.env, HOME: root } as Record<string, string> };

interface Entry {
  name: string;
  userInvocable: boolean;
  argumentHint: string | null;
  arguments: string[];
  takesArguments: boolean;
  whenToUse: string | null;
}

test("list --json reports the fields of each skill", async () => {
  const run = await runCli(["list", "--root", root, "--json"], opts);
  assert.equal(run.code, 0, run.stderr);
  const skills = jsonOf<{ skills: Entry[] }>(run).skills;
  const pick = ({ name, userInvocable, argumentHint, arguments: names, takesArguments, whenToUse }: Entry) => ({ name, userInvocable, argumentHint, arguments: names, takesArguments, whenToUse });
  assert.deepEqual(skills.map(pick), [
    { name: "fix-issue", userInvocable: false, argumentHint: "[issue] [priority]", arguments: ["issue", "priority"], takesArguments: true, whenToUse: "When an issue number is given." },
    { name: "templated", userInvocable: true, argumentHint: null, arguments: [], takesArguments: true, whenToUse: null },
  ]);
});

test("show prints the fields as written and whether a person can start it, in text and --json", async () => {
  const text = await runCli(["show", "fix-issue", "--root", root], opts);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^argument-hint: \[issue\] \[priority\]$/m);
  assert.match(text.stdout, /^arguments: issue, priority$/m);
  assert.match(text.stdout, /^user-invocable: false$/m);
  assert.match(text.stdout, /^when_to_use: When an issue number is given\.$/m);
  assert.match(text.stdout, /^prompt: none \(user-invocable: false\)$/m);
  const json = jsonOf<{ userInvocable: boolean; takesArguments: boolean; frontmatter: Record<string, unknown> }>(await runCli(["show", "templated", "--root", root, "--json"], opts));
  assert.deepEqual([json.userInvocable, json.takesArguments], [true, true]);
  assert.deepEqual(Object.keys(json.frontmatter), ["name", "description"]);
});

test("validate keeps calling them unexpected fields, as the reference does", async () => {
  const run = await runCli(["validate", `${root}/fix-issue`], opts);
  assert.equal(run.code, 1);
  assert.match(run.stdout + run.stderr, /Unexpected fields in frontmatter: argument-hint, arguments, user-invocable, when_to_use\./);
});
