import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { skillsRefPrompt, SkillsRefPromptError } from "../../src/prompt/skills-ref.js";
import { CORPUS, tempDir } from "../support/tmp.js";

const corpusDirs = fs
  .readdirSync(CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => path.join(CORPUS, entry.name))
  .sort();

/**
 * The reference `to_prompt`, transcribed to Python with PyYAML standing in for strictyaml
 * (they agree on the plain string values the corpus holds). It is an oracle independent of our
 * loader and escaping.
 */
const REFERENCE = String.raw`
import html, sys, yaml
from pathlib import Path

def find_skill_md(d):
    for name in ("SKILL.md", "skill.md"):
        p = d / name
        if p.exists():
            return p
    return None

def to_prompt(dirs):
    if not dirs:
        return "<available_skills>\n</available_skills>"
    lines = ["<available_skills>"]
    for d in dirs:
        d = Path(d).resolve()
        md = find_skill_md(d)
        meta = yaml.safe_load(md.read_text().split("---", 2)[1])
        lines += ["<skill>", "<name>", html.escape(meta["name"].strip()), "</name>",
                  "<description>", html.escape(meta["description"].strip()), "</description>",
                  "<location>", str(md), "</location>", "</skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)

sys.stdout.write(to_prompt(sys.argv[1:]))
`;

function reference(dirs: string[]): string | null {
  const run = spawnSync("python3", ["-c", REFERENCE, ...dirs], { encoding: "utf8" });
  return run.status === 0 ? run.stdout : null;
}

describe("skillsRefPrompt", () => {
  it("reproduces the reference output on the corpus byte for byte", (t) => {
    const expected = reference(corpusDirs);
    const actual = skillsRefPrompt(corpusDirs);
    if (expected === null) t.skip("python3 with PyYAML is not available for the oracle");
    else assert.equal(actual, expected);

    // Facts that hold whatever the oracle: shape, escaping, unescaped location, no trailing newline.
    assert.ok(actual.startsWith("<available_skills>\n<skill>\n<name>\nalgorithmic-art\n</name>\n<description>\n"));
    assert.ok(actual.endsWith("</location>\n</skill>\n</available_skills>"));
    assert.ok(actual.includes("Applies Anthropic&#x27;s official brand colors"));
    assert.ok(actual.includes(`<location>\n${path.join(fs.realpathSync(CORPUS), "brand-guidelines", "SKILL.md")}\n</location>`));
    assert.equal(actual.split("<skill>\n").length - 1, corpusDirs.length);
  });

  it("prints the empty block for no skills", () => {
    assert.equal(skillsRefPrompt([]), "<available_skills>\n</available_skills>");
  });

  it("strips, escapes with &#x27;, and resolves symlinks but leaves the location unescaped", () => {
    const root = fs.realpathSync(tempDir("skillport-ref-"));
    const dir = path.join(root, "a&b");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "SKILL.md"),
      "---\nname: '  tom-s  '\ndescription: \"  Tom's <tool> & \\\"more\\\"  \"\n---\nBody\n",
    );
    const link = path.join(root, "link");
    fs.symlinkSync(dir, link);
    assert.equal(
      skillsRefPrompt([link]),
      [
        "<available_skills>",
        "<skill>",
        "<name>",
        "tom-s",
        "</name>",
        "<description>",
        "Tom&#x27;s &lt;tool&gt; &amp; &quot;more&quot;",
        "</description>",
        "<location>",
        path.join(dir, "SKILL.md"),
        "</location>",
        "</skill>",
        "</available_skills>",
      ].join("\n"),
    );
    const expected = reference([link]);
    if (expected !== null) assert.equal(skillsRefPrompt([link]), expected);
    assert.equal(skillsRefPrompt([path.join(link, "SKILL.md")]), skillsRefPrompt([link]), "a SKILL.md path stands for its directory");
  });

  it("refuses a skill the reference cannot read, with its message", () => {
    const root = fs.realpathSync(tempDir("skillport-ref-"));
    fs.mkdirSync(path.join(root, "nodesc"));
    fs.writeFileSync(path.join(root, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nBody\n");
    assert.throws(
      () => skillsRefPrompt([path.join(root, "nodesc")]),
      (error: unknown) => error instanceof SkillsRefPromptError && /Missing required field in frontmatter: description/.test(error.message),
    );
    assert.throws(() => skillsRefPrompt([path.join(root, "absent")]), SkillsRefPromptError);
    fs.mkdirSync(path.join(root, "empty"));
    assert.throws(() => skillsRefPrompt([path.join(root, "empty")]), /SKILL\.md not found/);
  });
});
