import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { Envelope, LoadedData } from "../../src/tool/envelope.js";
import type { SkillSpec } from "../support/skill-spec.js";
import { MEMORY_LOG_MAX_CHARS, MEMORY_LOG_MAX_RECORDS, memoryLog } from "../../src/session/log.js";
import { runtimeOver, sessionOver } from "./host.js";

function statusOf(envelope: Envelope): string | undefined {
  return envelope.ok && "status" in envelope.data ? envelope.data.status : undefined;
}

function contentOf(envelope: Envelope): string {
  assert.equal(statusOf(envelope), "loaded");
  return (envelope.data as LoadedData).content;
}

/** A body of exactly `bytes` UTF-8 bytes, recognisable by its marker. */
function bodyOfBytes(marker: string, bytes: number): string {
  return marker + "x".repeat(bytes - Buffer.byteLength(marker));
}

const ENV_SKILL: SkillSpec = {
  frontmatter: "metadata:\n  requirements:\n    env: API_TOKEN",
  body: "Call the API with the token.",
};

/** Rewrites `root/name/SKILL.md` in place with the given extra frontmatter lines and body. */
function writeSkillFile(root: string, name: string, frontmatter: string, body: string): void {
  const head = ["---", `name: ${name}`, `description: Does ${name} things.`, ...(frontmatter ? [frontmatter] : []), "---"];
  fs.writeFileSync(path.join(root, name, "SKILL.md"), `${head.join("\n")}\n\n${body}\n`);
}

describe("dedup per epoch", () => {
  it("refuses the same content again and activates changed content, latest wins", async () => {
    const { root, session } = await sessionOver({ alpha: { body: "First version." } });
    assert.equal(contentOf(await session.call({ name: "alpha" })), "First version.");
    assert.equal(statusOf(await session.call({ name: "alpha" })), "already_active");

    fs.writeFileSync(path.join(root, "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Does alpha.\n---\n\nSecond, longer version.\n");
    assert.equal(contentOf(await session.call({ name: "alpha" })), "Second, longer version.");
    assert.equal(statusOf(await session.call({ name: "alpha" })), "already_active");

    assert.deepEqual(session.loaded(), ["alpha"]);
    const [stats] = session.stats();
    assert.equal(stats?.activations, 2);
    assert.equal(stats?.refusedReactivations, 2);
  });

  it("treats every spelling of a name as the one skill: NFKC, as names are loaded", async () => {
    const composed = "caf\u00e9";
    const decomposed = "cafe\u0301";
    const { session } = await sessionOver({ [composed]: { body: "Coffee." } }, { skills: [decomposed] });
    const first = await session.call({ name: decomposed });
    assert.equal(contentOf(first), "Coffee.");
    assert.equal((first.data as LoadedData).name, composed);
    assert.equal(statusOf(await session.call({ name: composed })), "already_active");
    assert.deepEqual(session.loaded(), [composed]);
    assert.deepEqual(session.available().map((skill) => skill.name), [composed], "the selection names it too");
  });

  it("treats two concurrent activations of one skill as one activation and one repeat", async () => {
    const { session } = await sessionOver({ alpha: {} });
    const results = await Promise.all([session.call({ name: "alpha" }), session.call({ name: "alpha" })]);
    assert.deepEqual(results.map(statusOf).sort(), ["already_active", "loaded"]);
  });
});

describe("compaction", () => {
  it("abort leaves dedup and grants exactly as they were; commit (reload) resets both", async () => {
    const { session } = await sessionOver({ keyed: ENV_SKILL }, { compaction: "reload" }, { API_TOKEN: "s3cret" });
    await session.call({ name: "keyed" }, { toolCallId: "t1" });
    assert.deepEqual(session.envGrants(), ["API_TOKEN"]);

    const aborted = session.beginCompaction();
    aborted.abort();
    assert.deepEqual(session.envGrants(), ["API_TOKEN"]);
    assert.equal(statusOf(await session.call({ name: "keyed" })), "already_active");
    assert.throws(() => aborted.commit(), /no longer open/);

    const committed = session.beginCompaction().commit();
    assert.deepEqual(session.envGrants(), []);
    assert.deepEqual(session.envFor(["API_TOKEN"]), {});
    assert.equal(committed.carried, null);
    assert.match(committed.reminder ?? "", /keyed/);
    assert.equal(statusOf(await session.call({ name: "keyed" })), "loaded");
    assert.deepEqual(session.envGrants(), ["API_TOKEN"]);
  });

  it("turns loading results into content-free digests at the same ids and keeps the originals in history", async () => {
    const { session } = await sessionOver({ alpha: { body: "Alpha steps." }, beta: { body: "Beta steps." } });
    await session.call({ name: "alpha" }, { toolCallId: "call-1" });
    await session.call({}, { toolCallId: "call-2" });
    await session.call({ name: "beta" }, { toolCallId: "call-3" });
    const result = session.beginCompaction().commit();
    assert.deepEqual(result.digests, {
      "call-1": { ok: true, error: null, data: { name: "alpha", status: "loaded", compacted: true } },
      "call-3": { ok: true, error: null, data: { name: "beta", status: "loaded", compacted: true } },
    });
    const original = session.history().find((record) => record.type === "call" && record.toolCallId === "call-1");
    assert.ok(original && original.type === "call");
    assert.equal(contentOf(original.envelope), "Alpha steps.");

    // Digested results are not retained any more: the next compaction has nothing to digest.
    assert.deepEqual(session.beginCompaction().commit().digests, {});
  });

  it("keeps a digest at a call id spelled like an object's prototype key", async () => {
    const { session } = await sessionOver({ alpha: { body: "Alpha steps." } });
    await session.call({ name: "alpha" }, { toolCallId: "__proto__" });
    const digests = session.beginCompaction().commit().digests;
    assert.deepEqual(Object.keys(digests), ["__proto__"]);
    assert.deepEqual(Object.getOwnPropertyDescriptor(digests, "__proto__")?.value, { ok: true, error: null, data: { name: "alpha", status: "loaded", compacted: true } });
  });

  it("carries the newer of two skills of 2/3 budget each verbatim and names the older", async () => {
    const budget = 300;
    const older = bodyOfBytes("OLDER-BODY", 200);
    const newer = bodyOfBytes("NEWER-BODY", 200);
    const { session } = await sessionOver({ older: { body: older }, newer: { body: newer } }, { carryBudgetBytes: budget });
    await session.call({ name: "older" });
    await session.call({ name: "newer" });
    const result = session.beginCompaction().commit();
    assert.ok(result.carried?.includes(`\n${newer}\n`), "the newer body is carried verbatim");
    assert.ok(!result.carried?.includes("OLDER-BODY"));
    assert.match(result.reminder ?? "", /\bolder\b/);
    assert.doesNotMatch(result.reminder ?? "", /\bnewer\b/);
    assert.equal(statusOf(await session.call({ name: "newer" })), "already_active", "carried skills stay active");
    assert.equal(statusOf(await session.call({ name: "older" })), "loaded", "named skills reload fresh");
  });

  it("names a single oversize skill and never cuts its body (budget counted in UTF-8 bytes)", async () => {
    // 60 characters but 120 bytes: only a byte count finds it too large for 100.
    const body = "é".repeat(60);
    const { session } = await sessionOver({ wide: { body } }, { carryBudgetBytes: 100 });
    await session.call({ name: "wide" });
    const result = session.beginCompaction().commit();
    assert.equal(result.carried, null);
    assert.match(result.reminder ?? "", /\bwide\b/);
    assert.ok(!(result.reminder ?? "").includes("é"));
    assert.equal(statusOf(await session.call({ name: "wide" })), "loaded");
  });

  it("still carries an older skill that fits after skipping a newer one that does not", async () => {
    const { session } = await sessionOver({ small: { body: "SMALL-STEPS" }, wide: { body: "W".repeat(500) } }, { carryBudgetBytes: 100 });
    await session.call({ name: "small" });
    await session.call({ name: "wide" });
    const result = session.beginCompaction().commit();
    assert.ok(result.carried?.includes("\nSMALL-STEPS\n"));
    assert.ok(!result.carried?.includes("WWW"));
    assert.match(result.reminder ?? "", /\bwide\b/);
  });

  it("replaces the carried block at the second compaction instead of stacking it", async () => {
    const { session } = await sessionOver({ alpha: { body: "ALPHA-STEPS" }, beta: { body: "BETA-STEPS" } });
    await session.call({ name: "alpha" });
    const first = session.beginCompaction().commit();
    assert.equal(first.carried?.split("ALPHA-STEPS").length, 2);

    await session.call({ name: "beta" });
    const second = session.beginCompaction().commit();
    const carried = second.carried ?? "";
    assert.equal(carried.split("<carried_skills>").length, 2, "one block");
    assert.equal(carried.split("ALPHA-STEPS").length, 2, "alpha once");
    assert.ok(carried.indexOf("BETA-STEPS") < carried.indexOf("ALPHA-STEPS"), "newest first");
    assert.equal(session.carriedState().carried, carried);
  });

  it("in reload mode resets dedup so the next call returns loaded, and names every skill once", async () => {
    const { session } = await sessionOver({ alpha: {}, beta: {} }, { compaction: "reload" });
    await session.call({ name: "alpha" });
    await session.call({ name: "beta" });
    const result = session.beginCompaction().commit();
    assert.equal(result.carried, null);
    assert.match(result.reminder ?? "", /alpha, beta/);
    assert.match(result.reminder ?? "", /inactive until reloaded/);
    assert.equal(statusOf(await session.call({ name: "alpha" })), "loaded");
    assert.deepEqual(session.loaded(), ["alpha", "beta"]);
  });

  it("keeps the grants of carried skills and ends those of skills that did not fit", async () => {
    const { session } = await sessionOver(
      {
        keyed: ENV_SKILL,
        wide: { frontmatter: "metadata:\n  requirements:\n    env: WIDE_KEY", body: bodyOfBytes("WIDE", 500) },
      },
      { carryBudgetBytes: 100 },
      { API_TOKEN: "t", WIDE_KEY: "w" },
    );
    await session.call({ name: "wide" });
    await session.call({ name: "keyed" });
    assert.deepEqual(session.envGrants(), ["API_TOKEN", "WIDE_KEY"]);
    const result = session.beginCompaction().commit();
    assert.ok(result.carried?.includes(ENV_SKILL.body ?? ""));
    assert.match(result.reminder ?? "", /\bwide\b/);
    assert.deepEqual(session.envGrants(), ["API_TOKEN"]);
    assert.deepEqual(session.envFor(["API_TOKEN", "WIDE_KEY"]), { API_TOKEN: "t" });
  });
});

describe("narrowing", () => {
  const skills: Record<string, SkillSpec> = {
    plain: {},
    reader: { frontmatter: "tools: [read, grep]" },
    runner: { frontmatter: "tools: bash" },
  };

  it("is null until a declaring skill loads, then the union over declaring skills with skill", async () => {
    const { session } = await sessionOver(skills);
    await session.call({ name: "plain" });
    assert.equal(session.narrowsSurfaceTo(), null);
    await session.call({ name: "reader" });
    assert.deepEqual(session.narrowsSurfaceTo(), ["read", "grep", "skill"]);
    await session.call({ name: "runner" });
    assert.deepEqual(session.narrowsSurfaceTo(), ["read", "grep", "bash", "skill"]);
  });

  it("gate refuses a withheld tool that was available before, with the policy message", async () => {
    const { session } = await sessionOver(skills);
    assert.deepEqual(session.gate("bash"), { allowed: true });
    await session.call({ name: "reader" });
    assert.deepEqual(session.gate("bash"), {
      allowed: false,
      message: "Blocked by policy: `bash` is withheld by an active restriction for this run. Available: `read`, `grep`, `skill`",
    });
    assert.deepEqual(session.gate("read"), { allowed: true });
    assert.deepEqual(session.gate("skill"), { allowed: true });
  });

  it("is not lifted by compaction: no unload within a conversation", async () => {
    const { session } = await sessionOver(skills, { compaction: "reload" });
    await session.call({ name: "reader" });
    session.beginCompaction().commit();
    assert.equal(session.gate("bash").allowed, false);
  });

  it("records the declarations of the same SKILL.md version as the content it loaded", async () => {
    const { root, session } = await sessionOver({ n: { body: "Old body." } });
    writeSkillFile(root, "n", "tools: [read]\nallowed-tools: Read", "New, longer body.");
    assert.equal(contentOf(await session.call({ name: "n" })), "New, longer body.");
    assert.deepEqual(session.narrowsSurfaceTo(), ["read", "skill"]);
    assert.deepEqual(session.preApprovedTools(), ["Read"]);
    assert.equal(session.gate("bash").allowed, false);
  });

  it("is not lifted by a new version that drops `tools`; declarations accumulate until clear()", async () => {
    const { root, runtime, session } = await sessionOver({ nar: { frontmatter: "tools: [read]", body: "First." } });
    await session.call({ name: "nar" });
    assert.deepEqual(session.narrowsSurfaceTo(), ["read", "skill"]);

    writeSkillFile(root, "nar", "", "Second, without tools.");
    await runtime.refresh();
    assert.equal(contentOf(await session.call({ name: "nar" })), "Second, without tools.");
    assert.deepEqual(session.narrowsSurfaceTo(), ["read", "skill"]);
    assert.equal(session.gate("bash").allowed, false);

    writeSkillFile(root, "nar", "tools: [grep]", "Third, declaring grep.");
    await runtime.refresh();
    assert.equal(contentOf(await session.call({ name: "nar" })), "Third, declaring grep.");
    assert.deepEqual(session.narrowsSurfaceTo(), ["read", "grep", "skill"]);

    session.clear();
    assert.equal(session.narrowsSurfaceTo(), null);
  });
});

describe("pre-approved tools and environment grants", () => {
  it("unions allowed-tools of active skills", async () => {
    const { session } = await sessionOver({
      a: { frontmatter: "allowed-tools: Read Grep" },
      b: { frontmatter: "allowed-tools: [Bash, Read]" },
    });
    assert.deepEqual(session.preApprovedTools(), []);
    await session.call({ name: "a" });
    await session.call({ name: "b" });
    assert.deepEqual(session.preApprovedTools(), ["Read", "Grep", "Bash"]);
  });

  it("hands out values only for granted names and never puts a value in model-visible text", async () => {
    const { session } = await sessionOver({ keyed: ENV_SKILL, other: {} }, {}, { API_TOKEN: "s3cret-value", HOME_SECRET: "nope" });
    assert.deepEqual(session.envFor(["API_TOKEN"]), {});
    const invocation = await session.invoke({ name: "keyed" }, { toolCallId: "k" });
    assert.deepEqual(session.envFor(["API_TOKEN", "HOME_SECRET", "MISSING"]), { API_TOKEN: "s3cret-value" });

    const visible = [
      invocation.text,
      JSON.stringify(invocation.envelope),
      session.catalogText(),
      JSON.stringify(session.beginCompaction().commit()),
      JSON.stringify(session.history()),
    ].join("\n");
    assert.ok(visible.includes("API_TOKEN"));
    assert.ok(!visible.includes("s3cret-value"));
  });
});

describe("clear", () => {
  it("ends the conversation: loaded, narrowing, grants, pre-approval, carried state and dedup", async () => {
    const { session } = await sessionOver(
      { keyed: { ...ENV_SKILL, frontmatter: `${ENV_SKILL.frontmatter}\ntools: [read]\nallowed-tools: Read` } },
      {},
      { API_TOKEN: "t" },
    );
    await session.call({ name: "keyed" });
    session.beginCompaction().commit();
    assert.notEqual(session.carriedState().carried, null);

    session.clear();
    assert.deepEqual(session.loaded(), []);
    assert.equal(session.narrowsSurfaceTo(), null);
    assert.deepEqual(session.envGrants(), []);
    assert.deepEqual(session.envFor(["API_TOKEN"]), {});
    assert.deepEqual(session.preApprovedTools(), []);
    assert.equal(session.carriedState().carried, null);
    assert.equal(session.gate("bash").allowed, true);
    assert.equal(statusOf(await session.call({ name: "keyed" })), "loaded");
  });

  it("aborts an unfinished compaction", async () => {
    const { session } = await sessionOver({ alpha: {} });
    const checkpoint = session.beginCompaction();
    session.clear();
    assert.throws(() => checkpoint.commit(), /no longer open/);
  });
});

describe("catalog pinning and available skills", () => {
  it("pins the catalog on first build and replaces it only at a committed compaction", async () => {
    const { root, session } = await sessionOver({ alpha: { description: "Alpha things." } });
    const first = session.catalogText();
    assert.match(first, /<name>alpha<\/name>/);

    fs.mkdirSync(path.join(root, "beta"));
    fs.writeFileSync(path.join(root, "beta", "SKILL.md"), "---\nname: beta\ndescription: Beta things.\n---\nBeta.\n");
    assert.equal(session.catalogText(), first, "a new skill does not change the pinned text");
    assert.equal(statusOf(await session.call({ name: "beta" })), "loaded", "but the tool sees it");

    session.beginCompaction().abort();
    assert.equal(session.catalogText(), first);
    session.beginCompaction().commit();
    assert.match(session.catalogText(), /<name>beta<\/name>/);
  });

  it("honours the catalog format and budget options", async () => {
    const { session } = await sessionOver({ alpha: { description: "A".repeat(300) } }, { catalog: { format: "markdown", budgetChars: 120 } });
    const text = session.catalogText();
    assert.match(text, /^## Available skills/);
    assert.ok([...text].length <= 120);
  });

  it("narrows explicitly to named skills on top of policy", async () => {
    const { session } = await sessionOver({ alpha: {}, beta: {} }, { skills: ["beta"] });
    assert.deepEqual(session.available().map((skill) => skill.name), ["beta"]);
    const miss = await session.call({ name: "alpha" });
    assert.equal(miss.ok ? undefined : miss.error.code, "skill_not_found");
    assert.doesNotMatch(session.catalogText(), /alpha/);
  });

  it("leaves a skill whose requirements are unmet out of the catalog and the {} listing, and activating it answers skill_unavailable", async () => {
    const { session } = await sessionOver({ alpha: {}, "needs-token": ENV_SKILL, "bad-needs": { frontmatter: "metadata:\n  requirements:\n    bogus: x" } });
    assert.deepEqual(session.available().map((skill) => skill.name), ["alpha"]);
    assert.doesNotMatch(session.catalogText(), /needs-token|bad-needs/);
    const listed = await session.call({});
    assert.deepEqual(listed.ok ? listed.data : null, { count: 1, skill_groups: [{ origin: "global", label: "Global", skills: [{ name: "alpha", description: "Does alpha things." }] }] });
    const refused = await session.call({ name: "needs-token" });
    assert.equal(refused.ok ? undefined : refused.error.code, "skill_unavailable");
    assert.match(refused.ok ? "" : refused.error.message, /env: API_TOKEN/);
  });

  it("offers the skill once its requirement is met", async () => {
    const { session } = await sessionOver({ "needs-token": ENV_SKILL }, {}, { API_TOKEN: "t" });
    assert.deepEqual(session.available().map((skill) => skill.name), ["needs-token"]);
    assert.match(session.catalogText(), /<name>needs-token<\/name>/);
  });

  it("carries nothing and shows no catalog when the tool is not offered", async () => {
    const { runtime } = await runtimeOver({ alpha: {} }, { agents: { blocked: { deniedTools: ["skill"] } } });
    const session = runtime.session({ log: false, agentId: "blocked" });
    assert.deepEqual(session.available(), []);
    assert.equal(session.catalogText(), "");
    const refused = await session.call({ name: "alpha" });
    assert.equal(refused.ok ? undefined : refused.error.code, "tool_unavailable");
  });
});

describe("session tool", () => {
  it("routes calls through the session, so dedup and history see them", async () => {
    const { session } = await sessionOver({ alpha: {} });
    assert.equal(session.tool.name, "skill");
    await session.tool.call({ name: "alpha" });
    assert.equal(statusOf(await session.call({ name: "alpha" })), "already_active");
    assert.equal(session.history().filter((record) => record.type === "call").length, 2);
  });

  it("refuses calls after close", async () => {
    const { session } = await sessionOver({ alpha: {} });
    session.close();
    await assert.rejects(session.call({}), /closed/);
  });

  it("answers arguments nested 5,000 deep and deeper with invalid_arguments, and logs the call", async () => {
    const { runtime, cwd } = await runtimeOver({ alpha: {} });
    const logFile = path.join(cwd, "deep.jsonl");
    const session = runtime.session({ log: logFile });
    const nested = (depth: number, make: (inner: unknown) => unknown): unknown => {
      let value: unknown = "x";
      for (let i = 0; i < depth; i++) value = make(value);
      return value;
    };
    const cases: unknown[] = [];
    for (const depth of [5_000, 100_000]) {
      cases.push(nested(depth, (inner) => [inner]), { name: nested(depth, (inner) => ({ a: inner })) }, { name: "alpha", extra: nested(depth, (inner) => [inner]) });
    }
    // Only the bounded copy reaches the log, and it is still what was sent, within the bound.
    cases.push({ name: nested(31, (inner) => [inner]) });
    for (const args of cases) {
      const envelope = await session.call(args);
      assert.equal(envelope.ok ? undefined : envelope.error.code, "invalid_arguments");
    }
    const calls = session.history().filter((record) => record.type === "call");
    assert.equal(calls.length, cases.length);
    assert.deepEqual(calls[0]!.type === "call" && calls[0]!.args, { unserializable: "arguments nested deeper than 32 levels" });
    assert.deepEqual(calls.at(-1)!.type === "call" && calls.at(-1)!.args, cases.at(-1));
    session.close();
    const logged = fs.readFileSync(logFile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { type: string });
    assert.equal(logged.filter((record) => record.type === "call").length, cases.length);
    assert.deepEqual(session.diagnostics(), []);
  });
});

describe("bounded memory", () => {
  it("an in-memory session keeps its newest records within the bounds while statistics count every call", async () => {
    const { runtime, cwd } = await runtimeOver({ alpha: {}, beta: {} });
    const session = runtime.session({ log: false });
    const calls = 10_000;
    for (let i = 0; i < calls; i++) await session.call(i % 2 === 0 ? {} : { name: "alpha" }, { toolCallId: `c${i}` });
    const history = session.history();
    // Exactly at the bound: the newest MEMORY_LOG_MAX_RECORDS records, oldest dropped.
    assert.equal(history.length, MEMORY_LOG_MAX_RECORDS);
    const last = history.at(-1)!;
    assert.ok(last.type === "call" && last.toolCallId === `c${calls - 1}`);
    const first = history[0]!;
    assert.ok(first.type === "call" && first.toolCallId === `c${calls - MEMORY_LOG_MAX_RECORDS}`);
    const alpha = session.stats().find((stats) => stats.name === "alpha")!;
    assert.equal(alpha.activations + alpha.refusedReactivations, calls / 2);
    assert.deepEqual(session.loaded(), ["alpha"]);

    // A file log keeps everything on disk, and the history is read back from it.
    const fileSession = runtime.session({ log: path.join(cwd, "long.jsonl") });
    for (let i = 0; i < 1_500; i++) await fileSession.call({}, { toolCallId: `f${i}` });
    assert.equal(fileSession.history().filter((record) => record.type === "call").length, 1_500);
    fileSession.close();
  });

  it("memoryHistory: 0 keeps no record at all, however long the conversation, while dedup and statistics go on", async () => {
    const { runtime } = await runtimeOver({ alpha: {}, beta: {} });
    const session = runtime.session({ log: false, memoryHistory: 0 });
    for (let i = 0; i < 2_000; i++) await session.call(i % 2 === 0 ? {} : { name: "alpha" }, { toolCallId: `c${i}` });
    session.catalogText();
    assert.deepEqual(session.history(), []);
    const alpha = session.stats().find((stats) => stats.name === "alpha")!;
    assert.equal(alpha.activations, 1);
    assert.equal(alpha.refusedReactivations, 999);
    assert.deepEqual(session.loaded(), ["alpha"]);
    session.close();
  });

  it("memoryHistory: N keeps the newest N records: exactly N after N calls, the first gone after one more", async () => {
    const { runtime } = await runtimeOver({ alpha: {} });
    const session = runtime.session({ log: false, memoryHistory: 5 });
    // The first call also writes the session header: 4 calls make 5 records.
    for (let i = 0; i < 4; i++) await session.call({}, { toolCallId: `c${i}` });
    const full = session.history();
    assert.equal(full.length, 5);
    assert.equal(full[0]!.type, "session");
    await session.call({}, { toolCallId: "c4" });
    const past = session.history();
    assert.equal(past.length, 5);
    assert.deepEqual(past.map((record) => (record.type === "call" ? record.toolCallId : record.type)), ["c0", "c1", "c2", "c3", "c4"]);
  });

  it("by default an in-memory session holds at most 64 records within 256 KiB of JSON, however many skills each listing names", async () => {
    assert.equal(MEMORY_LOG_MAX_RECORDS, 64);
    assert.equal(MEMORY_LOG_MAX_CHARS, 256 * 1024);
    const skills: Record<string, object> = {};
    for (let i = 0; i < 60; i++) skills[`skill-${String(i).padStart(2, "0")}`] = { description: `Does thing ${i}. ${"Use it when the task needs it. ".repeat(8)}` };
    const { runtime } = await runtimeOver(skills);
    const session = runtime.session({ log: false });
    for (let i = 0; i < 200; i++) await session.call({}, { toolCallId: `c${i}` });
    const history = session.history();
    const chars = history.reduce((sum, record) => sum + JSON.stringify(record).length, 0);
    const newest = JSON.stringify(history.at(-1)).length;
    // The size bound, not the count, is what holds here: each listing record is ~15 KB.
    assert.ok(history.length < MEMORY_LOG_MAX_RECORDS, `${history.length} records`);
    assert.ok(chars <= MEMORY_LOG_MAX_CHARS, `${chars} chars held`);
    assert.ok(chars > MEMORY_LOG_MAX_CHARS - newest, `${chars} chars held: fewer than the bound allows`);
    session.close();
  });

  it("memoryHistoryChars: the records are kept exactly at the size bound, and the oldest goes one character past it", () => {
    const record = (text: string) => ({ type: "catalog" as const, time: "t", text });
    const size = (text: string) => JSON.stringify(record(text)).length;
    const bound = size("aaaa") + size("bbbb");
    const at = memoryLog(10, bound);
    at.append(record("aaaa"));
    at.append(record("bbbb"));
    assert.deepEqual(at.held!().map((r) => (r.type === "catalog" ? r.text : "")), ["aaaa", "bbbb"]);
    const past = memoryLog(10, bound);
    past.append(record("aaaa"));
    past.append(record("bbbbb"));
    assert.deepEqual(past.held!().map((r) => (r.type === "catalog" ? r.text : "")), ["bbbbb"]);
  });

  it("memoryHistoryChars raises the size bound when the host asks, and must be a whole number", async () => {
    const { runtime } = await runtimeOver({ alpha: {} });
    for (const bad of [-1, 1.5, Number.NaN]) {
      assert.throws(() => runtime.session({ log: false, memoryHistoryChars: bad }), RangeError, String(bad));
    }
    const session = runtime.session({ log: false, memoryHistory: 1_000, memoryHistoryChars: 16 * 1024 * 1024 });
    for (let i = 0; i < 300; i++) await session.call({}, { toolCallId: `c${i}` });
    assert.equal(session.history().filter((record) => record.type === "call").length, 300);
    session.close();
  });

  it("memoryHistory must be a whole number of records, 0 or more", async () => {
    const { runtime } = await runtimeOver({ alpha: {} });
    for (const bad of [-1, 1.5, Number.NaN]) {
      assert.throws(() => runtime.session({ log: false, memoryHistory: bad }), RangeError, String(bad));
    }
  });

  it("the in-memory log holds the records of one more call past its bounds no longer, whatever their size", () => {
    const log = memoryLog(3, 1_000);
    const record = (text: string) => ({ type: "catalog" as const, time: "t", text });
    for (const text of ["a", "b", "c"]) log.append(record(text));
    assert.deepEqual(log.held!().map((r) => (r.type === "catalog" ? r.text : "")), ["a", "b", "c"]);
    log.append(record("d"));
    assert.deepEqual(log.held!().map((r) => (r.type === "catalog" ? r.text : "")), ["b", "c", "d"]);
    // Past the size bound older records go; the newest stays even when it alone is larger.
    log.append(record("x".repeat(960)));
    assert.deepEqual(log.held!().map((r) => (r.type === "catalog" ? r.text.length : 0)), [960]);
    log.append(record("y".repeat(5_000)));
    assert.deepEqual(log.held!().map((r) => (r.type === "catalog" ? r.text.length : 0)), [5_000]);
  });
});
