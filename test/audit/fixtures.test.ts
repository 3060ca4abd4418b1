/**
 * Recall and precision on skills written for the purpose (test/fixtures/audit): every
 * malicious skill (the published techniques of the 2026 registry campaigns and scanner
 * research, written anew with documentation addresses) blocks, and by the rules its
 * EXPECTED.json names; every benign skill, doing what honest skills do near those rules, passes.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { auditPackage, RULES, verdictOf } from "../../src/audit/index.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/audit");
const MALICIOUS = path.join(FIXTURES, "malicious");
const BENIGN = path.join(FIXTURES, "benign");

function skillsIn(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => fs.statSync(path.join(dir, n)).isDirectory()).sort();
}

test("at least 40 malicious skills, and every block rule has one", () => {
  const expected = JSON.parse(fs.readFileSync(path.join(MALICIOUS, "EXPECTED.json"), "utf8")) as Record<string, string[]>;
  assert.deepEqual(Object.keys(expected).sort(), skillsIn(MALICIOUS));
  assert.ok(skillsIn(MALICIOUS).length >= 40);
  const covered = new Set(Object.values(expected).flat());
  for (const rule of RULES.filter((r) => r.severity === "block")) assert.ok(covered.has(rule.id), `no malicious fixture for ${rule.id}`);
});

test("every malicious skill blocks, by the rules it is written for", async () => {
  const expected = JSON.parse(fs.readFileSync(path.join(MALICIOUS, "EXPECTED.json"), "utf8")) as Record<string, string[]>;
  for (const name of skillsIn(MALICIOUS)) {
    const findings = await auditPackage(path.join(MALICIOUS, name));
    assert.equal(verdictOf(findings), "block", `${name}: ${JSON.stringify(findings)}`);
    const blocking = new Set(findings.filter((f) => f.severity === "block").map((f) => f.rule));
    for (const rule of expected[name]!) assert.ok(blocking.has(rule), `${name} should block by ${rule}; it blocked by ${[...blocking].join(", ")}`);
  }
});

test("every benign skill passes", async () => {
  assert.ok(skillsIn(BENIGN).length >= 10);
  for (const name of skillsIn(BENIGN)) {
    const findings = await auditPackage(path.join(BENIGN, name));
    assert.deepEqual(findings, [], name);
  }
});
