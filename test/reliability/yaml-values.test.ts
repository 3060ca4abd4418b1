/**
 * No value YAML can produce may break a refresh (SPEC §1 YAML, §8). `yaml` still constructs the
 * YAML 1.1 types for explicit tags (`!!binary` a Uint8Array, `!!timestamp` a Date, `!!omap` a
 * Map, `!!set` a Set) and builds cycles through aliases; one such value once emptied the whole
 * registry. Here every tag and type the parser knows is thrown at the loader and the registry:
 * each skill loads with plain data or is left out with an error, and the others keep loading.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { loadSkillFile } from "../../src/package/load.js";
import { parseFlat, parseYaml } from "../../src/package/yaml.js";
import { fromWire, frozenLoad, toWire } from "../../src/registry/skill-wire.js";
import { createSkillRuntime } from "../../src/runtime.js";
import { realTempDir, writeSkill } from "../support/tmp.js";

const stamp = { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };

/** Only what JSON can hold, with no object reached twice on one path. */
function assertPlainData(value: unknown, where = "value", path: Set<object> = new Set()): void {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number") return;
  assert.equal(typeof value, "object", `${where} is ${typeof value}`);
  const object = value as object;
  assert.ok(!path.has(object), `${where} is part of a cycle`);
  const proto = Object.getPrototypeOf(object) as unknown;
  const isArray = Array.isArray(object) && proto === Array.prototype;
  assert.ok(isArray || proto === Object.prototype || proto === null, `${where} is a ${Object.prototype.toString.call(object)}`);
  path.add(object);
  for (const [key, inner] of Object.entries(object)) assertPlainData(inner, `${where}.${key}`, path);
  path.delete(object);
}

function frontmatter(name: string, extra: string): string {
  return `---\nname: ${name}\ndescription: A skill carrying odd YAML.\n${extra}\n---\n\n# ${name}\n`;
}

const ODD_VALUES: Record<string, string> = {
  "binary-top": "blob: !!binary aGk=",
  "binary-metadata": "metadata:\n  blob: !!binary aGk=",
  "binary-requirements": "metadata:\n  requirements:\n    env: !!binary aGk=",
  "binary-verbatim-tag": "blob: !<tag:yaml.org,2002:binary> aGk=",
  "timestamp-top": "when: !!timestamp 2001-12-14t21:59:43.10-05:00",
  "omap-metadata": "metadata:\n  order: !!omap [a: 1, b: 2]",
  "set-top": "tags: !!set {a, b}",
  "pairs-top": "pairs: !!pairs [a: 1, a: 2]",
  "cycle-top": "loop: &x [*x]",
};

test("a !!binary value in a top-level key, in metadata or in requirements leaves every other skill loading", async () => {
  const root = realTempDir("skillport-yaml-binary");
  writeSkill(root, "good", "name: good\ndescription: An ordinary skill.");
  for (const [name, extra] of Object.entries(ODD_VALUES)) {
    fs.mkdirSync(path.join(root, name));
    fs.writeFileSync(path.join(root, name, "SKILL.md"), frontmatter(name, extra));
  }
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], cwd: root, home: root });
  try {
    const diagnostics = runtime.diagnostics();
    assert.deepEqual(diagnostics.filter((d) => d.code === "refresh_failed"), []);
    // The snapshot, not the model's listing: that one leaves out skills whose requirements are unmet or malformed.
    const names = runtime.snapshot().skills.map((s) => s.name).sort();
    // Typed values load as text or plain collections; only the cycle is refused.
    assert.deepEqual(names, Object.keys(ODD_VALUES).filter((n) => n !== "cycle-top").concat("good").sort());
    const warned = new Set(diagnostics.filter((d) => d.code === "yaml_typed_value").map((d) => path.basename(path.dirname(d.path))));
    for (const name of ["binary-top", "binary-metadata", "binary-requirements", "binary-verbatim-tag", "timestamp-top", "omap-metadata", "set-top"]) {
      assert.ok(warned.has(name), `${name} has a yaml_typed_value warning`);
    }
    const cycle = diagnostics.find((d) => d.path.endsWith(path.join("cycle-top", "SKILL.md")));
    assert.equal(cycle?.severity, "error");
    assert.match(cycle!.message, /refers to itself through an alias/);
    for (const skill of runtime.snapshot().skills) assertPlainData(skill.manifest, skill.name);
    const extra = (name: string) => runtime.snapshot().skills.find((s) => s.name === name)!.manifest;
    assert.equal(extra("binary-top").extra.blob, "aGk=");
    assert.equal(extra("binary-metadata").metadata.blob, "aGk=");
    assert.equal(extra("timestamp-top").extra.when, "2001-12-15T02:59:43.100Z");
    assert.deepEqual(extra("omap-metadata").metadata.order, { a: 1, b: 2 });
    assert.deepEqual(extra("set-top").extra.tags, ["a", "b"]);
  } finally {
    await runtime.close();
  }
});

// YAML text for every tag and type `yaml` knows, mostly well formed for its tag (so that it
// really constructs the value), plus the js-yaml and Python tags and other unknown ones, which
// must be refused, never constructed.
const PLAIN_SCALARS = [
  "plain", "'single'", '"dq \\x41 \\u00e9"', "''", "~", "null", "Null", "true", "yes", "off", "0", "-0", "1_000", "0x1F", "0o17",
  "0b101", "012", "1e3", "1.5", ".nan", "-.inf", "+12", "123456789012345678901234567890", "2001-12-14", "2001-12-14 21:59:43.10 -5",
  "12:30:45", "<<", "=", "aGk=",
];
const TYPED_SCALARS = [
  "!!binary aGk=", "!!binary ''", '!!binary "R0lGODlhDAAMAIQAAP//9/X17unp5WZmZgAAAOfn515eXvPz7Y6OjuDg4J+fn5OTk6enp56enmleECcgggoBADs="',
  "!<tag:yaml.org,2002:binary> aGk=", "!!timestamp 2001-12-14", "!!timestamp 2001-12-14t21:59:43.10-05:00", "!!timestamp 2002-12-14 21:59:43.10 -5",
  "!<tag:yaml.org,2002:timestamp> 2001-12-14", "!!int 12", "!!int 0x1F", "!!int 1_000", "!!float 1.5", "!!float .inf", "!!str 12", "!!str ~",
  "!!null ''", "!!null ~", "!!bool true", "!!bool yes", "! 12", "!!merge <<", "!!value =",
];
const UNKNOWN_TAGGED = [
  "!!foo bar", "!local x", "!!js/undefined ''", "!!js/regexp /x/g", "!!js/function 'function () {}'", "!!python/object/apply:os.system ['true']",
  "!<tag:example.com,2000:x> y", "!!timestamp not-a-date", "!!int twelve",
];
const ANCHORS = ["a1", "a2", "a3"];

const scalar = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PLAIN_SCALARS) }, { weight: 4, arbitrary: fc.constantFrom(...TYPED_SCALARS) }, { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_TAGGED) });
const keyText = fc.constantFrom("k", "j", "m", "1", "null", "<<", "'quoted key'");

const flowValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => {
  const entries = fc.uniqueArray(fc.tuple(keyText, tie("value")), { selector: ([k]) => k, maxLength: 3 });
  return {
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 6, arbitrary: scalar },
      { weight: 1, arbitrary: fc.constantFrom(...ANCHORS).map((a) => `*${a}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ANCHORS), tie("value")).map(([a, v]) => `&${a} ${v}`) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom("", "!!seq "), fc.array(tie("value"), { maxLength: 3 })).map(([tag, items]) => `${tag}[${items.join(", ")}]`) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom("", "!!map "), entries).map(([tag, pairs]) => `${tag}{${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}}`) },
      { weight: 2, arbitrary: entries.map((pairs) => `!!omap [${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}]`) },
      { weight: 1, arbitrary: fc.array(fc.tuple(keyText, tie("value")), { maxLength: 3 }).map((pairs) => `!!pairs [${pairs.map(([k, v]) => `${k}: ${v}`).join(", ")}]`) },
      { weight: 2, arbitrary: fc.uniqueArray(fc.oneof(scalar, tie("value")), { maxLength: 3 }).map((items) => `!!set {${items.join(", ")}}`) },
      { weight: 1, arbitrary: fc.tuple(entries, tie("value")).map(([pairs, v]) => `{<<: ${v}${pairs.map(([k, w]) => `, ${k}: ${w}`).join("")}}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("!!omap", "!!set", "!!binary", "!!foo"), tie("value")).map(([tag, v]) => `${tag} ${v}`) },
    ),
  };
}).value;

/** A value written in block style: a tagged block list or mapping, or a flow value. */
const blockValue = fc.oneof(
  { weight: 4, arbitrary: flowValue.map((v) => ` ${v}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("", "!!seq", "!!omap", "!!pairs"), fc.uniqueArray(fc.tuple(fc.constantFrom("x", "y", "z"), flowValue), { selector: ([k]) => k, minLength: 1, maxLength: 3 }))
      .map(([tag, pairs]) => ` ${tag}\n${pairs.map(([k, v]) => (tag === "" || tag === "!!seq" ? `    - ${v}` : `    - ${k}: ${v}`)).join("\n")}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("", "!!map", "!!set"), fc.uniqueArray(fc.tuple(fc.constantFrom("x", "y", "<<", "? z"), flowValue), { selector: ([k]) => k, minLength: 1, maxLength: 3 }))
      .map(([tag, pairs]) => ` ${tag}\n${pairs.map(([k, v]) => (tag === "!!set" ? `    ? ${v}` : `    ${k}: ${v}`)).join("\n")}`),
  },
);

/** Directives before the mapping, or the whole document as an ordered map. */
const PREFIXES = ["", "", "", "%YAML 1.1\n--- !!map\n", "%YAML 1.2\n--- !!map\n", "%TAG !e! tag:yaml.org,2002:\n--- !!map\ne1: !e!binary aGk=\n", "--- !!omap\n"];

/** A whole SKILL.md: odd values at the top level, in metadata and in requirements. */
const oddSkill = fc
  .record({
    prefix: fc.constantFrom(...PREFIXES),
    top: fc.uniqueArray(fc.tuple(fc.constantFrom("blob", "when", "<<", "extra", "? [k]", "tools", "allowed-tools", "license"), blockValue), { selector: ([k]) => k, maxLength: 2 }),
    meta: fc.uniqueArray(fc.tuple(fc.constantFrom("blob", "order", "<<", "vbot"), blockValue.map((v) => v.replace(/\n/g, "\n  "))), { selector: ([k]) => k, maxLength: 2 }),
    requirement: fc.option(fc.tuple(fc.constantFrom("env", "binary", "skill", "all", "any", "optional"), flowValue), { nil: undefined }),
    description: fc.oneof({ weight: 3, arbitrary: fc.constant("A skill.") }, { weight: 1, arbitrary: flowValue }),
  })
  .map(({ prefix, top, meta, requirement, description }) => {
    const lines = [`name: NAME`, `description: ${description}`];
    for (const [k, v] of top) lines.push(`${k}:${v}`);
    if (meta.length > 0 || requirement) {
      lines.push("metadata:");
      for (const [k, v] of meta) lines.push(`  ${k}:${v}`);
      if (requirement) lines.push("  requirements:", `    ${requirement[0]}: ${requirement[1]}`);
    }
    // As an ordered map, each top-level entry is an item of a list, its nested lines indented under it.
    const text = lines.join("\n");
    const body = prefix === "--- !!omap\n" ? text.replace(/^(?=\S)/gm, "- ").replace(/^(?= )/gm, "  ") : text;
    return `---\n${prefix}${body}\n---\n\n# body\n`;
  });

test("fuzz: every tag and type yaml constructs loads as plain data or is refused with an error, never thrown", () => {
  let loaded = 0;
  let converted = 0;
  fc.assert(
    fc.property(oddSkill, (text) => {
      const result = loadSkillFile("/s/x/SKILL.md", "/s/x", text.replace("NAME", "x"), stamp);
      if (!result.skill) {
        assert.ok(result.diagnostics.some((d) => d.severity === "error"), text);
        return;
      }
      loaded++;
      if (result.diagnostics.some((d) => d.code === "yaml_typed_value")) converted++;
      assertPlainData(result.skill.manifest, "manifest");
      JSON.stringify(result.skill.manifest);
      // Both ways into a snapshot: across a worker boundary, and frozen on the registry's own thread.
      fromWire(structuredClone(toWire(result)), "/s/x", "/s/x/SKILL.md");
      frozenLoad(result);
    }),
    { numRuns: 1500 },
  );
  // The property cannot pass by refusing everything: odd values really load.
  assert.ok(loaded > 100, `${loaded} skills loaded`);
  assert.ok(converted > 20, `${converted} skills had typed values converted`);
});

test("fuzz: a refresh over skills carrying any YAML value never fails, and the ordinary skill keeps loading", async () => {
  const root = realTempDir("skillport-yaml-fuzz");
  writeSkill(root, "good", "name: good\ndescription: An ordinary skill.");
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], cwd: root, home: root });
  let batch = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(oddSkill, { minLength: 1, maxLength: 6 }), async (texts) => {
        batch++;
        const dirs = texts.map((text, i) => {
          const name = `b${batch}-s${i}`;
          fs.mkdirSync(path.join(root, name));
          fs.writeFileSync(path.join(root, name, "SKILL.md"), text.replace("NAME", name));
          return name;
        });
        try {
          await runtime.refresh();
          assert.deepEqual(runtime.diagnostics().filter((d) => d.severity === "error" && !d.path.startsWith(root + path.sep + "b")), []);
          const names = new Set(runtime.snapshot().skills.map((s) => s.name));
          assert.ok(names.has("good"), "the ordinary skill is still loaded");
          for (const dir of dirs) {
            const explained = runtime.diagnostics().some((d) => d.severity === "error" && d.path.startsWith(path.join(root, dir) + path.sep));
            assert.ok(names.has(dir) || explained, `${dir} loaded or has an error naming it`);
          }
          for (const skill of runtime.snapshot().skills) assertPlainData(skill.manifest, skill.name);
          runtime.registry().list();
        } finally {
          for (const dir of dirs) fs.rmSync(path.join(root, dir), { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  } finally {
    await runtime.close();
  }
});

/** The core schema's scalars (text, null, booleans, numbers), lists and plain mappings: all the fast tier may ever construct. */
function assertScalarsListsMaps(value: unknown, where: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number") return;
  assert.ok(typeof value === "object", `${where} is ${String(value)}`);
  const proto = Object.getPrototypeOf(value) as unknown;
  assert.ok(proto === Array.prototype || proto === Object.prototype, `${where} is a ${Object.prototype.toString.call(value)}`);
  for (const [key, inner] of Object.entries(value)) assertScalarsListsMaps(inner, `${where}.${key}`);
}

test("the fast tier yields only scalars, lists and maps of them, and what yaml reads, whatever it is given", () => {
  let read = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom("a", "b", "metadata"), blockValue), { maxLength: 4 }), (pairs) => {
      const text = pairs.map(([k, v]) => `${k}:${v}`).join("\n");
      const fast = parseFlat(text);
      if (fast === null) return;
      read++;
      assertScalarsListsMaps(fast, text);
      // Never a reading of its own: whatever it accepts, the full parser reads the same way.
      const full = parseYaml(text);
      assert.ok(full.ok, `fast tier accepted what the full parser refuses: ${JSON.stringify(text)}`);
      assert.deepEqual(fast, full.value, JSON.stringify(text));
    }),
    { numRuns: 3000 },
  );
  // Most of these documents are odd enough to go to the full parser; some must not.
  assert.ok(read >= 10, `only ${read} documents went through the fast tier`);
});
