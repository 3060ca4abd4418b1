// Pins the reference validator's behaviour case by case (its messages, its order).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { skillsRefPrompt } from "../../src/prompt/skills-ref.js";
import { validateSkill } from "../../src/package/validate.js";
import { CORPUS, tempDir, writeSkill } from "../support/tmp.js";

const root = tempDir();
const ONLY = "Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.";

test("a valid skill has no errors", async () => {
  const dir = writeSkill(root, "my-skill", "name: my-skill\ndescription: A test skill");
  assert.deepEqual(await validateSkill(dir), []);
});

test("missing path, not a directory, missing SKILL.md", async () => {
  const missing = path.join(root, "nope");
  assert.deepEqual(await validateSkill(missing), [`Path does not exist: ${missing}`]);
  const file = path.join(root, "file.txt");
  fs.writeFileSync(file, "x");
  assert.deepEqual(await validateSkill(file), [`Not a directory: ${file}`]);
  const empty = path.join(root, "empty");
  fs.mkdirSync(empty);
  assert.deepEqual(await validateSkill(empty), ["Missing required file: SKILL.md"]);
});

test("a SKILL.md path means its directory", async () => {
  const dir = writeSkill(root, "file-path", "name: file-path\ndescription: d");
  assert.deepEqual(await validateSkill(path.join(dir, "SKILL.md")), []);
});

const nameCases: Array<[string, string, string[]]> = [
  ["MySkill", "MySkill", ["Skill name 'MySkill' must be lowercase"]],
  ["-my-skill", "-my-skill", ["Skill name cannot start or end with a hyphen"]],
  ["my-skill-", "my-skill-", ["Skill name cannot start or end with a hyphen"]],
  ["my--skill", "my--skill", ["Skill name cannot contain consecutive hyphens"]],
  ["my_skill", "my_skill", ["Skill name 'my_skill' contains invalid characters. Only letters, digits, and hyphens are allowed."]],
];
for (const [dirName, name, expected] of nameCases) {
  test(`name ${JSON.stringify(name)}`, async () => {
    const dir = writeSkill(root, dirName, `name: ${name}\ndescription: d`);
    assert.deepEqual(await validateSkill(dir), expected);
  });
}

test("a name over 64 characters", async () => {
  const long = "a".repeat(70);
  const dir = writeSkill(root, long, `name: ${long}\ndescription: d`);
  assert.deepEqual(await validateSkill(dir), [`Skill name '${long}' exceeds 64 character limit (70 chars)`]);
});

test("directory name must match", async () => {
  const dir = writeSkill(root, "wrong-dir", "name: right-name\ndescription: d");
  assert.deepEqual(await validateSkill(dir), ["Directory name 'wrong-dir' must match skill name 'right-name'"]);
});

test("unexpected fields are listed sorted, with the allowed list", async () => {
  const dir = writeSkill(root, "extra-fields", "name: extra-fields\ndescription: d\nzeta: 1\nalpha: 2");
  assert.deepEqual(await validateSkill(dir), [`Unexpected fields in frontmatter: alpha, zeta. ${ONLY}`]);
});

test("all standard fields", async () => {
  const dir = writeSkill(
    root,
    "all-fields",
    "name: all-fields\ndescription: d\nlicense: MIT\ncompatibility: Python 3.11+\nallowed-tools: Bash(git:*) Read\nmetadata:\n  author: me\n  version: '1.0'",
  );
  assert.deepEqual(await validateSkill(dir), []);
});

test("allowed-tools is not checked, as the reference checks it not; its YAML still refuses flow lists", async () => {
  assert.deepEqual(await validateSkill(writeSkill(root, "at-string", "name: at-string\ndescription: d\nallowed-tools: Read Write")), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "at-block", "name: at-block\ndescription: d\nallowed-tools:\n  - Read\n  - Write")), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "at-map", "name: at-map\ndescription: d\nallowed-tools:\n  a: b")), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "at-flow", "name: at-flow\ndescription: d\nallowed-tools: [Read, Write]")), [
    [
      "Invalid YAML in frontmatter: While scanning",
      '  in "<unicode string>", line 4, column 16:',
      "    allowed-tools: [Read, Write]",
      "                   ^ (line: 4)",
      "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)",
      '  in "<unicode string>", line 4, column 17:',
      "    allowed-tools: [Read, Write]",
      "                    ^ (line: 4)",
    ].join("\n"),
  ]);
});

test("Chinese and Russian names are valid; upper-case Russian is not", async () => {
  assert.deepEqual(await validateSkill(writeSkill(root, "技能", "name: 技能\ndescription: d")), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "мой-навык", "name: мой-навык\ndescription: d")), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "НАВЫК", "name: НАВЫК\ndescription: d")), [
    "Skill name 'НАВЫК' must be lowercase",
  ]);
});

test("description and compatibility over their limits", async () => {
  const desc = "x".repeat(1100);
  assert.deepEqual(await validateSkill(writeSkill(root, "long-desc", `name: long-desc\ndescription: ${desc}`)), [
    "Description exceeds 1024 character limit (1100 chars)",
  ]);
  const compat = "y".repeat(501);
  assert.deepEqual(await validateSkill(writeSkill(root, "long-compat", `name: long-compat\ndescription: d\ncompatibility: ${compat}`)), [
    "Compatibility exceeds 500 character limit (501 chars)",
  ]);
});

test("each length limit is exact: a name of 64, a description of 1024 and a compatibility of 500 pass; one more fails", async () => {
  const at = "n".repeat(64);
  assert.deepEqual(await validateSkill(writeSkill(root, at, `name: ${at}\ndescription: d`)), []);
  const over = "n".repeat(65);
  assert.deepEqual(await validateSkill(writeSkill(root, over, `name: ${over}\ndescription: d`)), [`Skill name '${over}' exceeds 64 character limit (65 chars)`]);
  assert.deepEqual(await validateSkill(writeSkill(root, "desc-at", `name: desc-at\ndescription: ${"x".repeat(1024)}`)), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "desc-over", `name: desc-over\ndescription: ${"x".repeat(1025)}`)), [
    "Description exceeds 1024 character limit (1025 chars)",
  ]);
  assert.deepEqual(await validateSkill(writeSkill(root, "compat-at", `name: compat-at\ndescription: d\ncompatibility: ${"y".repeat(500)}`)), []);
  assert.deepEqual(await validateSkill(writeSkill(root, "compat-over", `name: compat-over\ndescription: d\ncompatibility: ${"y".repeat(501)}`)), [
    "Compatibility exceeds 500 character limit (501 chars)",
  ]);
});

test("lengths are counted in code points, not UTF-16 units", async () => {
  // 1000 astral characters are 2000 UTF-16 units but 1000 characters: within the limit.
  const desc = "😀".repeat(1000);
  assert.deepEqual(await validateSkill(writeSkill(root, "emoji-desc", `name: emoji-desc\ndescription: ${desc}`)), []);
});

test("NFKC: a decomposed name matches a composed directory", async () => {
  const composed = "caf\u00e9";
  const decomposed = "cafe\u0301";
  assert.deepEqual(await validateSkill(writeSkill(root, composed, `name: ${decomposed}\ndescription: d`)), []);
});

test("several errors at once, in reference order", async () => {
  const dir = writeSkill(root, "other-dir", "name: Bad--Name-\ndescription: ''\nfoo: 1");
  assert.deepEqual(await validateSkill(dir), [
    `Unexpected fields in frontmatter: foo. ${ONLY}`,
    "Skill name 'Bad--Name-' must be lowercase",
    "Skill name cannot start or end with a hyphen",
    "Skill name cannot contain consecutive hyphens",
    "Directory name 'other-dir' must match skill name 'Bad--Name-'",
    "Field 'description' must be a non-empty string",
  ]);
});

test("missing name and description", async () => {
  const dir = writeSkill(root, "nothing", "license: MIT");
  assert.deepEqual(await validateSkill(dir), [
    "Missing required field in frontmatter: name",
    "Missing required field in frontmatter: description",
  ]);
});

test("frontmatter errors use the reference messages", async () => {
  const dir = path.join(root, "no-fm");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "SKILL.md"), "# Just markdown\n");
  assert.deepEqual(await validateSkill(dir), ["SKILL.md must start with YAML frontmatter (---)"]);
  fs.writeFileSync(path.join(dir, "SKILL.md"), "---\nname: no-fm\n");
  assert.deepEqual(await validateSkill(dir), ["SKILL.md frontmatter not properly closed with ---"]);
  fs.writeFileSync(path.join(dir, "SKILL.md"), "---\n- a\n- b\n---\n");
  assert.deepEqual(await validateSkill(dir), ["SKILL.md frontmatter must be a YAML mapping"]);
  fs.writeFileSync(path.join(dir, "SKILL.md"), "---\nname: [unclosed\n---\n");
  const [message, ...rest] = await validateSkill(dir);
  assert.equal(rest.length, 0);
  assert.match(message!, /^Invalid YAML in frontmatter/);
});

test("strict validation does not quote-retry a value containing ': '", async () => {
  const dir = writeSkill(root, "colon", "name: colon\ndescription: Use when: the user asks");
  const [message] = await validateSkill(dir);
  assert.equal(
    message,
    'Invalid YAML in frontmatter: mapping values are not allowed here\n  in "<unicode string>", line 3, column 22:\n    description: Use when: the user asks\n                         ^ (line: 3)',
  );
});

test("the corpus: only claude-api fails, on its description length", async () => {
  for (const name of fs.readdirSync(CORPUS)) {
    const errors = await validateSkill(path.join(CORPUS, name));
    if (name === "claude-api") assert.deepEqual(errors, ["Description exceeds 1024 character limit (1068 chars)"]);
    else assert.deepEqual(errors, [], name);
  }
});

test("where the reference crashes, validate says what is wrong: invalid UTF-8, a directory named SKILL.md, a BEL", async () => {
  const bytes = path.join(root, "bad-bytes");
  fs.mkdirSync(bytes);
  fs.writeFileSync(path.join(bytes, "SKILL.md"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a, 0x2d, 0x2d, 0x2d, 0x0a]));
  assert.deepEqual(await validateSkill(bytes), ["SKILL.md is not valid UTF-8"]);
  const folder = path.join(root, "dir-skill");
  fs.mkdirSync(path.join(folder, "SKILL.md"), { recursive: true });
  assert.deepEqual(await validateSkill(folder), [`${path.join(folder, "SKILL.md")} is a directory, not a file`]);
  const bell = writeSkill(root, "bell", "name: bell\ndescription: Rings \u0007 here");
  assert.deepEqual(await validateSkill(bell), ["Invalid YAML in frontmatter: control character U+0007 at line 3, column 20 is not allowed in YAML"]);
});

test("a `---` inside a quoted value does not end the frontmatter, as it does for the reference", async () => {
  const dir = writeSkill(root, "rule-inside", 'name: rule-inside\ndescription: "Before --- after"\nlicense: MIT');
  assert.deepEqual(await validateSkill(dir), []);
  const prompt = skillsRefPrompt([dir]);
  assert.match(prompt, /<description>\nBefore --- after\n<\/description>/);
});

test("the file is read as the reference reads it: CRLF line breaks are breaks, a BOM is not frontmatter", async () => {
  const crlf = path.join(root, "crlf");
  fs.mkdirSync(crlf);
  fs.writeFileSync(path.join(crlf, "SKILL.md"), "---\r\nname: crlf\r\ndescription: Windows.\r\n---\r\nBody\r\n");
  assert.deepEqual(await validateSkill(crlf), []);
  const bom = path.join(root, "bom");
  fs.mkdirSync(bom);
  fs.writeFileSync(path.join(bom, "SKILL.md"), "\uFEFF---\nname: bom\ndescription: Byte order mark.\n---\n");
  assert.deepEqual(await validateSkill(bom), ["SKILL.md must start with YAML frontmatter (---)"]);
});
