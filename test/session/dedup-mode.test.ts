/**
 * How a session answers a repeated activation (SPEC §5.1, revised): a library session keeps the
 * seeds' epoch dedup by default; `dedup: "none"` (the MCP server's default) answers every
 * activation with the content and says so in the log's header, so a restore keeps it; a person
 * asking (`userInvoked`) always gets the content.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { readSessionLog } from "../../src/session/log.js";
import type { SessionHeaderRecord } from "../../src/session/records.js";
import { realTempDir } from "../support/tmp.js";
import { runtimeOver } from "./host.js";

const statusOf = (envelope: { ok: boolean; data: unknown }): string => (envelope.data as { status: string }).status;

test("a library session dedups per epoch by default, exactly as before", async () => {
  const { runtime } = await runtimeOver({ alpha: {} });
  const session = runtime.session();
  assert.equal(statusOf(await session.call({ name: "alpha" })), "loaded");
  assert.equal(statusOf(await session.call({ name: "alpha" })), "already_active");
  session.clear();
  assert.equal(statusOf(await session.call({ name: "alpha" })), "loaded", "a new conversation loads it again");
  session.close();
});

test("dedup none answers every activation with the content, still tracking what is active", async () => {
  const { runtime } = await runtimeOver({ alpha: { frontmatter: "tools: [read]" } });
  const session = runtime.session({ dedup: "none" });
  const first = await session.call({ name: "alpha" });
  const second = await session.call({ name: "alpha" });
  assert.deepEqual([statusOf(first), statusOf(second)], ["loaded", "loaded"]);
  assert.deepEqual(second, first);
  assert.deepEqual(session.loaded(), ["alpha"]);
  assert.deepEqual(session.narrowsSurfaceTo()?.sort(), ["read", "skill"]);
  assert.equal(session.stats()[0]!.activations, 2);
  session.close();
});

test("a person asking (userInvoked) always gets the content, even where the model would get the stub", async () => {
  const { runtime } = await runtimeOver({ alpha: {} });
  const session = runtime.session();
  assert.equal(statusOf(await session.call({ name: "alpha" })), "loaded");
  assert.equal(statusOf(await session.call({ name: "alpha" }, { userInvoked: true })), "loaded");
  assert.equal(statusOf(await session.call({ name: "alpha" })), "already_active");
  session.close();
});

test("the mode is written into the log's header only when not the default, and a restore keeps it", async () => {
  const { runtime } = await runtimeOver({ alpha: {} });
  const dir = realTempDir("skillport-dedup-logs");
  const none = runtime.session({ id: "no-dedup", dedup: "none", log: dir + path.sep });
  await none.call({ name: "alpha" });
  none.close();
  const epoch = runtime.session({ id: "dedup", log: dir + path.sep });
  await epoch.call({ name: "alpha" });
  epoch.close();
  const header = (file: string) => readSessionLog(path.join(dir, file)).records.find((r) => r.type === "session") as SessionHeaderRecord;
  assert.equal(header("no-dedup.jsonl").dedup, "none");
  assert.equal("dedup" in header("dedup.jsonl"), false);
  const restored = runtime.session({ log: path.join(dir, "no-dedup.jsonl"), restore: true });
  assert.equal(statusOf(await restored.call({ name: "alpha" })), "loaded");
  restored.close();
  assert.throws(() => runtime.session({ dedup: "sometimes" as never }), /dedup must be "epoch" or "none"/);
});
