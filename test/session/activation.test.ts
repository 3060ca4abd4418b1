import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { skillToolActivation } from "../../src/session/activation.js";

const loaded = {
  ok: true,
  error: null,
  data: {
    name: "pdf",
    status: "loaded",
    content: "Steps.",
    resource_files: { guidance: "Read when told.", files: ["references/a.md"] },
    environment_access: { names: ["API_TOKEN"], guidance: "Request through env_keys." },
  },
};

function message(content: unknown) {
  return { role: "tool", name: "skill", content };
}

describe("skillToolActivation", () => {
  it("parses a fresh loaded envelope given as an object or as JSON text", () => {
    const expected = {
      name: "pdf",
      content: "Steps.",
      resourceFiles: { guidance: "Read when told.", files: ["references/a.md"] },
      environmentAccess: { names: ["API_TOKEN"], guidance: "Request through env_keys." },
    };
    assert.deepEqual(skillToolActivation(message(loaded)), expected);
    assert.deepEqual(skillToolActivation(message(JSON.stringify(loaded))), expected);
  });

  it("leaves optional fields out when absent or malformed, keeping the activation", () => {
    const bare = { ok: true, error: null, data: { name: "pdf", status: "loaded", content: "", resource_files: { files: "x" } } };
    assert.deepEqual(skillToolActivation(message(bare)), { name: "pdf", content: "" });
  });

  it("returns null for stubs, digests, failures, lists, reads and malformed input", () => {
    const cases: unknown[] = [
      message({ ok: true, error: null, data: { name: "pdf", status: "already_active", message: "Already." } }),
      message({ ok: true, error: null, data: { name: "pdf", status: "loaded", compacted: true } }),
      message({ ok: false, error: { code: "skill_not_found", message: "No." }, data: null }),
      message({ ok: true, error: null, data: { count: 0, skill_groups: [] } }),
      message({ ok: true, error: null, data: { name: "pdf", status: "file_loaded", file_path: "SKILL.md", content: "x" } }),
      message("{not json"),
      message(null),
      message({ ok: true, error: { code: "x" }, data: loaded.data }),
      message({ ok: true, error: null, data: { ...loaded.data, name: "  " } }),
      { role: "assistant", name: "skill", content: loaded },
      { role: "tool", name: "bash", content: loaded },
      null,
      "text",
      [],
    ];
    for (const input of cases) assert.equal(skillToolActivation(input), null, JSON.stringify(input));
  });
});
