/**
 * The reference's YAML dialect (strictyaml over ruamel), on frontmatter shapes taken from public
 * skills. Expected texts are the reference's own output, recorded; the differential test
 * (test/cli/reference-parity.test.ts) compares thousands more against the live reference.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as path from "node:path";
import { loadSkillSync, loadSkillSyncMarked } from "../../src/package/load.js";
import { REFERENCE_UNCHECKED } from "../../src/package/reference-check.js";
import { createSkillRuntime } from "../../src/runtime.js";
import { loadStrictYaml, problemLine, pythonRepr, strictYamlProblem, type StrictValue } from "../../src/package/strict-yaml/index.js";
import { generateSkill, random } from "../support/frontmatter-generator.js";
import { splitFrontmatter } from "../../src/package/split.js";
import { tempDir, writeSkill } from "../support/tmp.js";

function messageOf(text: string): string {
  const result = loadStrictYaml(text);
  assert.equal(result.ok, false, `expected a refusal of ${JSON.stringify(text)}`);
  return result.ok ? "" : (result.message ?? `crash: ${result.crash}`);
}

function plain(value: StrictValue | null): unknown {
  if (value === null || typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  return value;
}

test("a flow mapping is refused with strictyaml's words and ruamel's snippet, cut at 36 code points either side", () => {
  const text = '\nname: vibetunnel\ndescription: Run a terminal in the browser and share it with a link to anyone at all.\nmetadata: {"clawdbot":{"emoji":"🖥️","requires":{"bins":["vt"]}}}\n';
  assert.equal(
    messageOf(text),
    [
      "While scanning",
      '  in "<unicode string>", line 4, column 11:',
      '    metadata: {"clawdbot":{"emoji":"🖥️","requi ... ',
      "              ^ (line: 4)",
      "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)",
      '  in "<unicode string>", line 4, column 12:',
      '    metadata: {"clawdbot":{"emoji":"🖥️","requir ... ',
      "               ^ (line: 4)",
    ].join("\n"),
  );
});

test("a duplicate key in a nested mapping is refused where it stands", () => {
  assert.equal(
    messageOf("\nname: x\nmetadata:\n  a: 1\n  a: 2\n"),
    "While parsing\n  in \"<unicode string>\", line 5, column 3:\n      a: 2\n      ^ (line: 5)\nDuplicate key 'a' found\n  in \"<unicode string>\", line 5, column 4:\n      a: 2\n       ^ (line: 5)",
  );
});

test("columns count code points, as Python does, not UTF-16 units", () => {
  assert.equal(
    messageOf("\nname: 技能\ndescription: 日本語の説明: ここ\n"),
    'mapping values are not allowed here\n  in "<unicode string>", line 3, column 20:\n    description: 日本語の説明: ここ\n                       ^ (line: 3)',
  );
});

test("two merge keys are refused with ruamel's note; sibling mappings indented differently are refused", () => {
  assert.ok(messageOf("\nname: x\n<<:\n  a: b\n<<:\n  c: d\n").endsWith('found duplicate key "<<"\n  in "<unicode string>", line 5, column 1:\n    <<:\n    ^ (line: 5)\n\nTo suppress this check see:\n   http://yaml.readthedocs.io/en/latest/api.html#duplicate-keys\n\nDuplicate keys will become an error in future releases, and are errors\nby default when using the new API.\n'));
  assert.match(messageOf("\nname: x\nother:\n  a: b\nmore:\n    c: d\n"), /^While parsing\n.*line 6, column 5:[\s\S]*Found mapping with indentation inconsistent with previous mapping\n {2}in "<unicode string>", line 7, column 1:/);
});

test("every scalar is text, block scalars keep their lines, an empty value is the empty string", () => {
  const result = loadStrictYaml("\nname: 123\ndescription: |\n  Line one\n  Line two\nflag: true\nempty:\nlist:\n  - a\n  - null\n");
  assert.ok(result.ok);
  assert.deepEqual(plain(result.value), { name: "123", description: "Line one\nLine two\n", flag: "true", empty: "", list: ["a", "null"] });
});

test("tags, anchors and aliases are refused; a control character is named with its place", () => {
  assert.match(messageOf("a: !!str b"), /^While scanning\n[\s\S]*Found disallowed tag tokens \(do not specify types in markup\)/);
  assert.match(messageOf("a: &x b"), /Found confusing disallowed anchor token/);
  assert.match(messageOf("a: *x"), /^found undefined alias 'x'\n/);
  assert.equal(messageOf("a: b\nc: d\u0007"), "crash: control character U+0007 at line 2, column 5 is not allowed in YAML");
});

test("Python's repr quotes as Python does", () => {
  assert.equal(pythonRepr("\t"), "'\\t'");
  assert.equal(pythonRepr("it's"), `"it's"`);
  assert.equal(pythonRepr("é"), "'é'");
  assert.equal(pythonRepr("\u200b"), "'\\u200b'");
});

test("loading stays lenient: a flow list loads, with a warning that the reference refuses it", () => {
  const dir = writeSkill(tempDir(), "tagged", "name: tagged\ndescription: Has tags.\ntags: [a, b]");
  const loaded = loadSkillSync(dir);
  assert.ok(loaded.skill, JSON.stringify(loaded.diagnostics));
  const warning = loaded.diagnostics.find((d) => d.code === "yaml_reference_refused");
  assert.equal(warning?.severity, "warning");
  assert.match(warning?.message ?? "", /Found ugly disallowed JSONesque flow mapping .* \(SKILL\.md line 4, column 8\)$/);
  assert.deepEqual(loaded.skill.diagnostics, loaded.diagnostics);
  assert.equal(strictYamlProblem("name: x\n"), null);
});

test("a registry's load only marks the file; whoever reads the diagnostics gets the reference's warning", { timeout: 60_000 }, async (t) => {
  const root = tempDir();
  writeSkill(root, "tagged", "name: tagged\ndescription: Has tags.\ntags: [a, b]");
  // A `[` inside quotes draws a mark (the cheap test cannot tell) but no warning.
  writeSkill(root, "quoted", 'name: quoted\ndescription: "Has [brackets] in quotes."');
  writeSkill(root, "plain", "name: plain\ndescription: Nothing odd.");
  const marked = loadSkillSyncMarked(path.join(root, "tagged"));
  assert.deepEqual(marked.diagnostics.map((d) => d.code), [REFERENCE_UNCHECKED]);
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], watch: false });
  t.after(() => runtime.close());
  const refused = runtime.diagnostics().filter((d) => d.code === "yaml_reference_refused");
  assert.deepEqual(refused.map((d) => path.basename(path.dirname(d.path))), ["tagged"]);
  assert.match(refused[0]!.message, /^The reference validator \(skills-ref\) refuses this frontmatter, so `skillport validate` does too: Found ugly disallowed JSONesque flow mapping .* \(SKILL\.md line 4, column 8\)$/);
  assert.ok(!runtime.diagnostics().some((d) => d.code === REFERENCE_UNCHECKED));
  // A reader that wants only errors does not pay for the strict re-read, and sees no marks.
  assert.deepEqual(runtime.diagnostics(undefined, { referenceDialect: false }), []);
});

test("the loader's shortcut for a leading flow collection says exactly what the full reader says", () => {
  // The shortcut judges `key: [a, b]` without reading the document token by token; here it is
  // held to the full reader over generated real-shaped frontmatter with collection lines put in
  // at every depth, after block scalars, folded and quoted scalars, lists and nested mappings,
  // with the lines around them shifted.
  const next = random(20261201);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const collections = ["tags: [a, b]", "tags: []", 'm: {a: b, c: "d"}', "x: [ 'q' , r ]", "k: [a b, c-d]", "- t: [a]", "k: [a, b] ", "k: [a,b] # c", "k: [a: b]", "k: [@x]", 'k: ["line 3, column 4:"]'];
  const indents = ["", " ", "  ", "   ", "    ", "      "];
  const after = ["", "  - x", "key: value", "- [y]", "k:v", "@odd", "'open", "  # note", "key: [z]"];
  let compared = 0;
  let refusedByShortcut = 0;
  for (let i = 0; i < 4000; i++) {
    const split = splitFrontmatter(generateSkill(next).content);
    if (!split.ok) continue;
    const lines = split.frontmatter.split("\n");
    const at = Math.floor(next() * lines.length);
    lines.splice(at, 0, pick(indents) + pick(collections));
    if (next() < 0.5 && at + 1 < lines.length) lines[at + 1] = pick(indents) + lines[at + 1]!.trimStart();
    if (next() < 0.3) lines.splice(at + 1, 0, pick(after));
    if (next() < 0.3 && at > 0) lines[at - 1] = pick(indents) + lines[at - 1]!.trimStart();
    for (const text of [split.frontmatter, lines.join("\n")]) {
      const full = problemLine(loadStrictYaml(text), 2);
      assert.equal(strictYamlProblem(text, 2), full, JSON.stringify(text));
      compared++;
      if (full?.startsWith("Found ugly disallowed JSONesque")) refusedByShortcut++;
    }
  }
  assert.ok(compared >= 6000 && refusedByShortcut >= 1000, `${compared} compared, ${refusedByShortcut} flow refusals`);
  // Escaped quotes and backslashes, and block scalars of every header, above the collection:
  // the shortcut takes some of these, and must agree with the full reader on all of them.
  const prefixes = [
    'description: "Say \\"hi\\" to it"',
    'description: "a \\\\ b"',
    'description: "a \\q b"',
    'description: "a \\\\"',
    "description: say \\\"hi\\\" plainly",
    "description: 'it\\'",
    "description: |\n  text [a]\n  k: [b]",
    "description: >-\n  folded\n  text",
    "description: |+\n  kept\n",
    "description: |2\n   indented",
    "description: | # note\n  text",
    "description: |\ntext at column 0",
    "m:\n  d: |\n    deep\n  e: f",
    "description: |\n\n  after a blank",
  ];
  let shortcutTaken = 0;
  for (const prefix of prefixes) {
    for (const collection of collections) {
      for (const indent of ["", "  "]) {
        const text = `name: x\n${prefix}\n${indent}${collection}\nlicense: y\n`;
        const full = problemLine(loadStrictYaml(text), 2);
        assert.equal(strictYamlProblem(text, 2), full, JSON.stringify(text));
        if (full?.startsWith("Found ugly disallowed JSONesque")) shortcutTaken++;
      }
    }
  }
  assert.ok(shortcutTaken >= 50, `${shortcutTaken} flow refusals after escapes and block scalars`);
  // Text that reads like a position, on the collection's own line: the full reader's message
  // shows that line, and its words decide.
  for (const text of ['name: x\nk: ["line 3, column 4:"]\n', "name: x\nk: [a, b]\n"]) assert.equal(strictYamlProblem(text, 2), problemLine(loadStrictYaml(text), 2));
});
