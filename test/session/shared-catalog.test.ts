// The catalog text is computed once per (skill list, scope, options) and shared by every session
// and every tools/list; these tests hold it to never showing a session stale or foreign skills.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { realTempDir } from "../support/tmp.js";
import { runtimeOver } from "./host.js";

function addSkill(root: string, name: string): void {
  fs.mkdirSync(path.join(root, name));
  fs.writeFileSync(path.join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: Does ${name} things.\n---\nBody.\n`);
}

describe("shared catalog", () => {
  it("hands every session of a scope one frozen skill list, replaced by a refresh that changes skills and kept by one that does not", async () => {
    const { root, runtime } = await runtimeOver({ alpha: {} });
    const first = runtime.registry().offered!();
    assert.equal(runtime.registry().offered!(), first);
    assert.ok(Object.isFrozen(first) && first.every((info) => Object.isFrozen(info)));
    assert.deepEqual(runtime.registry().list(), first.map((info) => ({ ...info })));

    await runtime.refresh();
    assert.equal(runtime.registry().offered!(), first, "an unchanged tree, with the same skills usable, keeps the list");

    addSkill(root, "beta");
    await runtime.refresh();
    const second = runtime.registry().offered!();
    assert.notEqual(second, first);
    assert.deepEqual(second.map((info) => info.name), ["alpha", "beta"]);
  });

  it("gives a session opened after a refresh the new skills, and an open session's live catalog too, while its pinned catalog stays", async () => {
    const { root, runtime } = await runtimeOver({ alpha: {} });
    const early = runtime.session({ log: false });
    const pinned = early.catalogText();
    assert.equal(early.currentCatalogText(), pinned);
    assert.equal(runtime.session({ log: false }).catalogText(), pinned, "a second session of the scope gets the same text");

    addSkill(root, "beta");
    await runtime.refresh();
    const late = runtime.session({ log: false });
    assert.match(late.catalogText(), /<name>beta<\/name>/);
    assert.match(early.currentCatalogText(), /<name>beta<\/name>/, "tools/list shows the live registry");
    assert.equal(early.catalogText(), pinned, "the prompt-epoch catalog stays pinned (SPEC §5.5)");
    early.beginCompaction().commit();
    assert.equal(early.catalogText(), late.catalogText(), "and is rebuilt from the live registry at a committed compaction");

    fs.rmSync(path.join(root, "beta"), { recursive: true });
    await runtime.refresh();
    assert.doesNotMatch(runtime.session({ log: false }).catalogText(), /beta/, "a removed skill leaves the shared text too");
  });

  it("never shares a catalog across scopes whose policies differ, or into a scope whose tool is withheld", async () => {
    const { runtime } = await runtimeOver(
      { alpha: {}, beta: {} },
      { agents: { onlyAlpha: { allowedSkills: ["alpha"] }, noBeta: { excludedSkills: ["alpha"] }, toolless: { deniedTools: ["skill"] } } },
    );
    const everyone = runtime.session({ log: false }).catalogText();
    const onlyAlpha = runtime.session({ log: false, agentId: "onlyAlpha" }).catalogText();
    const noAlpha = runtime.session({ log: false, agentId: "noBeta" }).catalogText();
    assert.match(everyone, /alpha[\s\S]*beta/);
    assert.match(onlyAlpha, /<name>alpha<\/name>/);
    assert.doesNotMatch(onlyAlpha, /beta/);
    assert.match(noAlpha, /<name>beta<\/name>/);
    assert.doesNotMatch(noAlpha, /alpha/);
    const toolless = runtime.session({ log: false, agentId: "toolless" });
    assert.equal(toolless.catalogText(), "");
    assert.equal(toolless.currentCatalogText(), "");
  });

  it("narrows the shared list for a session with a selection without narrowing anyone else's", async () => {
    const { root, runtime } = await runtimeOver({ alpha: {}, beta: {} });
    const narrowed = runtime.session({ log: false, skills: ["beta"] });
    const whole = runtime.session({ log: false });
    assert.doesNotMatch(narrowed.catalogText(), /alpha/);
    assert.match(whole.catalogText(), /alpha[\s\S]*beta/);
    assert.match(runtime.session({ log: false, skills: ["alpha"] }).catalogText(), /<name>alpha<\/name>/);
    addSkill(root, "gamma");
    await runtime.refresh();
    assert.doesNotMatch(narrowed.currentCatalogText(), /gamma|alpha/, "a refresh does not widen a selection");
    assert.match(narrowed.currentCatalogText(), /<name>beta<\/name>/);
  });

  it("renews the shared catalog when a refresh changes which skills are usable, though the tree is unchanged", async () => {
    const bin = realTempDir("skillport-bin");
    const { runtime } = await runtimeOver({ alpha: {}, "needs-tool": { frontmatter: "metadata:\n  requirements:\n    binary: some-tool" } }, { env: { PATH: bin } });
    const session = runtime.session({ log: false });
    assert.doesNotMatch(session.currentCatalogText(), /needs-tool/, "unusable skills are not offered");
    fs.writeFileSync(path.join(bin, "some-tool"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const outcome = await runtime.refresh();
    assert.ok(outcome.ok && !outcome.changed);
    assert.match(session.currentCatalogText(), /<name>needs-tool<\/name>/);
    assert.match(runtime.session({ log: false }).catalogText(), /<name>needs-tool<\/name>/);
    fs.rmSync(path.join(bin, "some-tool"));
    await runtime.refresh();
    assert.doesNotMatch(session.currentCatalogText(), /needs-tool/);
  });
});
