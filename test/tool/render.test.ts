import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { failure, success } from "../../src/tool/envelope.js";
import { renderEnvelopeText } from "../../src/tool/render.js";
import { makeSkill } from "../support/skill-spec.js";
import { realTempDir } from "../support/tmp.js";
import { globalSource, runtimeHarness } from "./harness.js";

const root = realTempDir("skillport-render");
const dir = makeSkill(root, "kit", {
  description: "Kit things.\n  Over two lines.",
  body: "# Kit\n\nUse {baseDir}/scripts/run.sh.",
  frontmatter: "metadata:\n  requirements:\n    env: KIT_TOKEN",
  files: { "scripts/run.sh": "", "references/a&b.md": "" },
});
makeSkill(root, "solo", { body: "Solo body." });
const { tool } = await runtimeHarness({ ...globalSource(root, "Team"), env: { KIT_TOKEN: "value" } });

test("a loaded skill renders as <skill_content> with body, directory, resources and env guidance", async () => {
  const { envelope, text } = await tool.invoke({ name: "kit" });
  assert.ok(envelope.ok);
  assert.equal(
    text,
    [
      '<skill_content name="kit">',
      (envelope.data as { environment_access: { guidance: string } }).environment_access.guidance,
      "",
      `# Kit\n\nUse ${dir}/scripts/run.sh.`,
      "",
      `Skill directory: ${dir}`,
      "Relative paths in this skill are relative to the skill directory.",
      "",
      (envelope.data as { resource_files: { guidance: string } }).resource_files.guidance,
      "<skill_resources>",
      `  <file>${path.join(dir, "scripts/run.sh")}</file>`,
      "  <file>references/a&amp;b.md</file>",
      "</skill_resources>",
      "</skill_content>",
    ].join("\n"),
  );
  assert.match(text, /KIT_TOKEN/);
  assert.equal(renderEnvelopeText(envelope, { skillDir: dir }), text, "invoke uses the one renderer");
});

test("the envelope content stays the bare body; only the text is wrapped", async () => {
  const { envelope, text } = await tool.invoke({ name: "solo" });
  assert.equal((envelope.data as { content: string }).content, "Solo body.");
  assert.equal(text, `<skill_content name="solo">\nSolo body.\n\nSkill directory: ${path.join(root, "solo")}\nRelative paths in this skill are relative to the skill directory.\n</skill_content>`);
  assert.equal(renderEnvelopeText(envelope), '<skill_content name="solo">\nSolo body.\n</skill_content>', "without a directory the line is left out");
});

test("a list renders as a readable catalog; an empty one says so", async () => {
  const { text } = await tool.invoke({});
  assert.equal(text, "2 skills available. Load one by calling this tool with its name.\n\n## Team\n- kit: Kit things. Over two lines.\n- solo: Does solo things.");
  assert.equal(renderEnvelopeText(success({ count: 0, skill_groups: [] })), "No skills are available.");
});

test("file reads render as the file content, already_active and errors as their message", async () => {
  assert.equal((await tool.invoke({ name: "solo", file_path: "SKILL.md" })).text.startsWith("---\nname: solo"), true);
  const stub = await tool.invoke({ name: "solo" }, { activateSkill: () => false });
  assert.equal(stub.text, (stub.envelope.data as { message: string }).message);
  const missing = await tool.invoke({ name: "nope" });
  assert.equal(missing.text, missing.envelope.error!.message);
  assert.equal(renderEnvelopeText(failure({ code: "invalid_arguments", message: "Bad." })), "Bad.");
});

test("a skill name is escaped in the wrapper attribute", () => {
  const text = renderEnvelopeText(success({ name: 'x"<y', status: "loaded", content: "b" }));
  assert.ok(text.startsWith('<skill_content name="x&quot;&lt;y">'));
});
