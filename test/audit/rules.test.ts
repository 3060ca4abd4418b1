/**
 * Every rule's own examples (SPEC §12): each must-match example trips the rule, each
 * must-not-match example does not. The examples live in the rules table, so a rule and the
 * text it is meant for cannot drift apart.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";
import { auditBytes, auditSkillMd, auditText, confusableFindings, RULES, type Finding, type Rule } from "../../src/audit/index.js";
import { readFrontmatter } from "../../src/package/frontmatter.js";

/** Runs one example as the rule's target reads it. */
export function runExample(rule: Rule, example: string): Finding[] {
  switch (rule.target) {
    case "text": {
      const named = /^#!file:(\S+)\n/.exec(example);
      return named ? auditText(named[1]!, example.slice(named[0].length)) : auditText("SKILL.md", example);
    }
    case "skill-md": {
      const fm = readFrontmatter(example, { allowRetry: true });
      return auditSkillMd(example, fm.ok ? fm.data : null);
    }
    case "bytes":
      return auditBytes("assets/file.bin", Buffer.from(example, "latin1"));
    case "name": {
      const [name, others] = example.split("|") as [string, string];
      return confusableFindings(name, others.split(","));
    }
  }
}

test("the rules table: unique ids, a severity, a one-line reason, examples both ways", () => {
  const ids = RULES.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const rule of RULES) {
    assert.match(rule.id, /^[a-z0-9-]+$/);
    assert.ok(rule.severity === "block" || rule.severity === "warn");
    assert.ok(rule.reason.length > 10 && !rule.reason.includes("\n"), rule.id);
    assert.ok(rule.mustMatch.length > 0 && rule.mustNotMatch.length > 0, `${rule.id} has examples both ways`);
  }
});

test("SPEC §12's rules are all in the table, at their severity", () => {
  const severity = new Map(RULES.map((r) => [r.id, r.severity]));
  for (const id of ["invisible-tag-characters", "bidi-control", "zero-width-in-word", "decode-and-run", "untrusted-fetch-and-run", "password-protected-archive", "download-and-run-executable", "paste-encoded-command", "native-executable"]) {
    assert.equal(severity.get(id), "block", id);
  }
  for (const id of ["pipe-to-shell", "bang-command", "credential-store-read", "environment-exfiltration", "model-rule-override", "hidden-html-comment", "shell-preapproved", "confusable-name"]) {
    assert.equal(severity.get(id), "warn", id);
  }
});

for (const rule of RULES) {
  test(`rule ${rule.id}: its examples`, () => {
    for (const example of rule.mustMatch) {
      const found = runExample(rule, example).filter((f) => f.rule === rule.id);
      assert.ok(found.length > 0, `${rule.id} must match ${JSON.stringify(example)}`);
      for (const f of found) {
        assert.equal(f.severity, rule.severity);
        assert.ok(f.line >= 1);
        assert.ok(f.message.includes(rule.reason), f.message);
      }
    }
    for (const example of rule.mustNotMatch) {
      const found = runExample(rule, example).filter((f) => f.rule === rule.id);
      assert.deepEqual(found, [], `${rule.id} must not match ${JSON.stringify(example)}`);
    }
  });
}
