/**
 * One contract for every `SessionStore`: each store's test file runs these against a real
 * instance (PostgreSQL included), so the memory, file and database stores cannot drift apart.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import type { SessionRecord } from "../../src/session/records.js";
import { applyRecord, emptyState, type ConversationState } from "../../src/session/state.js";
import { MAX_MESSAGE_BYTES, type SessionKey, type SessionStore, type StoreMessage } from "../../src/session/store.js";

/** Long enough that a session touched just before a claim is never mistaken for idle on a loaded machine. */
const IDLE_MS = 1000;

export interface StorePair {
  /** Two writers on one store: two processes' connections where the store allows it. */
  a: SessionStore;
  b: SessionStore;
  close(): Promise<void>;
}

function header(id: string): SessionRecord {
  return { type: "session", v: 1, time: "2026-01-01T00:00:00.000Z", id, compaction: "carry", carryBudgetBytes: 24000 };
}

function loaded(seq: number, name: string, content = `# ${name}\n`): SessionRecord {
  return {
    type: "call",
    time: "2026-01-01T00:00:01.000Z",
    seq,
    toolCallId: `call-${seq}`,
    args: { name },
    envelope: { ok: true, error: null, data: { name, status: "loaded", content } },
    activation: { tools: null, allowedTools: null, env: [] },
  };
}

function fold(records: readonly SessionRecord[]): ConversationState {
  const state = emptyState();
  for (const record of records) applyRecord(state, record);
  return state;
}

export function freshKey(principal = ""): SessionKey {
  return { principal, sessionId: randomUUID() };
}

export function storeContract(name: string, open: () => Promise<StorePair>): void {
  describe(`${name} store: the SessionStore contract`, () => {
    it("reads back what was appended, with sequences from 0, from any point", async () => {
      const { a, close } = await open();
      try {
        const key = freshKey();
        assert.deepEqual(await a.read(key), { records: [], nextSeq: 0, diagnostics: [] });
        assert.deepEqual(await a.appendAt(key, 0, [header(key.sessionId), loaded(0, "alpha")]), { status: "ok", nextSeq: 2 });
        assert.deepEqual(await a.appendAt(key, 2, [{ type: "clear", time: "t" }], { durable: true }), { status: "ok", nextSeq: 3 });
        const all = await a.read(key);
        assert.deepEqual(all.records.map((r) => [r.seq, r.record.type]), [[0, "session"], [1, "call"], [2, "clear"]]);
        assert.equal(all.nextSeq, 3);
        const tail = await a.read(key, 2);
        assert.deepEqual(tail.records.map((r) => r.seq), [2]);
        assert.equal(tail.nextSeq, 3);
        assert.deepEqual((await a.read(key, 3)).records, []);
      } finally {
        await close();
      }
    });

    it("lets exactly one of two concurrent writers append at a sequence; the other gets the winner's records", async () => {
      const { a, b, close } = await open();
      try {
        const key = freshKey();
        await a.appendAt(key, 0, [header(key.sessionId)]);
        const [first, second] = await Promise.all([a.appendAt(key, 1, [loaded(0, "alpha")]), b.appendAt(key, 1, [loaded(0, "beta")])]);
        const outcomes = [first.status, second.status].sort();
        assert.deepEqual(outcomes, ["conflict", "ok"]);
        const lost = first.status === "conflict" ? first : second;
        const wonName = first.status === "ok" ? "alpha" : "beta";
        assert.ok(lost.status === "conflict");
        assert.equal(lost.nextSeq, 2);
        assert.deepEqual(lost.records.map((r) => [r.seq, (r.record as { args: { name: string } }).args.name]), [[1, wonName]]);
        // Deciding again at the new sequence succeeds, and nothing was lost or doubled.
        assert.equal((await (first.status === "conflict" ? a : b).appendAt(key, 2, [loaded(1, "gamma")])).status, "ok");
        assert.deepEqual((await b.read(key)).records.map((r) => r.seq), [0, 1, 2]);
      } finally {
        await close();
      }
    });

    it("refuses an append past the end instead of leaving a gap", async () => {
      const { a, close } = await open();
      try {
        const key = freshKey();
        await a.appendAt(key, 0, [header(key.sessionId)]);
        await assert.rejects(a.appendAt(key, 2, [{ type: "clear", time: "t" }]), /gap/);
        await assert.rejects(a.appendAt(key, -1, [{ type: "clear", time: "t" }]), RangeError);
        await assert.rejects(a.appendAt(key, 1, []), RangeError);
        assert.equal((await a.read(key)).nextSeq, 1);
      } finally {
        await close();
      }
    });

    it("answers a retried idempotency key with the stored answer and appends nothing again", async () => {
      const { a, b, close } = await open();
      try {
        const key = freshKey();
        const idempotencyKey = `${key.sessionId}:7`;
        const answer = { envelope: { ok: true }, text: "é ✓ \u0000 quoted \"x\"" };
        await a.appendAt(key, 0, [header(key.sessionId)]);
        assert.equal((await a.appendAt(key, 1, [loaded(0, "alpha")], { idempotencyKey, answer })).status, "ok");
        // The retry, from another writer, at the sequence it knew: answered, not appended.
        assert.deepEqual(await b.appendAt(key, 1, [loaded(0, "alpha")], { idempotencyKey, answer: { other: true } }), { status: "duplicate", answer });
        assert.deepEqual(await b.appendAt(key, 2, [loaded(1, "alpha")], { idempotencyKey }), { status: "duplicate", answer });
        const read = await b.read(key, 0, { idempotencyKey });
        assert.deepEqual(read.answer, answer);
        assert.equal(read.nextSeq, 2);
        assert.equal("answer" in (await b.read(key, 0, { idempotencyKey: `${key.sessionId}:8` })), false);
      } finally {
        await close();
      }
    });

    it("acts once when two writers race with the same idempotency key", async () => {
      const { a, b, close } = await open();
      try {
        const key = freshKey();
        const idempotencyKey = `${key.sessionId}:1`;
        await a.appendAt(key, 0, [header(key.sessionId)]);
        const results = await Promise.all([
          a.appendAt(key, 1, [loaded(0, "alpha")], { idempotencyKey, answer: "first" }),
          b.appendAt(key, 1, [loaded(0, "alpha")], { idempotencyKey, answer: "second" }),
        ]);
        assert.deepEqual(results.map((r) => r.status).sort(), ["duplicate", "ok"]);
        const winner = results[0]!.status === "ok" ? "first" : "second";
        const duplicate = results.find((r) => r.status === "duplicate");
        assert.ok(duplicate?.status === "duplicate");
        assert.equal(duplicate.answer, winner);
        assert.equal((await a.read(key)).nextSeq, 2);
      } finally {
        await close();
      }
    });

    it("restores the same conversation state as the writer folded", async () => {
      const { a, b, close } = await open();
      try {
        const key = freshKey();
        const written: SessionRecord[] = [
          header(key.sessionId),
          { type: "catalog", time: "t", text: "<available_skills/>" },
          loaded(0, "alpha"),
          loaded(1, "beta"),
          { type: "checkpoint", time: "t", checkpoint: 0, phase: "begin" },
          {
            type: "checkpoint",
            time: "t",
            checkpoint: 0,
            phase: "commit",
            result: { digests: {}, carried: "<carried_skills/>", reminder: null },
            kept: ["beta"],
          },
          loaded(2, "gamma"),
        ];
        let seq = 0;
        for (const record of written) {
          const result = await a.appendAt(key, seq, [record], { durable: record.type === "checkpoint" });
          assert.equal(result.status, "ok");
          seq += 1;
        }
        const restored = fold((await b.read(key)).records.map((r) => r.record));
        assert.deepEqual(restored, fold(written));
        assert.deepEqual([...restored.active.keys()].sort(), ["beta", "gamma"]);
      } finally {
        await close();
      }
    });

    it("keeps principals apart: one session id, two conversations, two idempotency spaces", async () => {
      const { a, b, close } = await open();
      try {
        const sessionId = randomUUID();
        const alice: SessionKey = { principal: "agent:alice", sessionId };
        const bob: SessionKey = { principal: "agent:bob", sessionId };
        const idempotencyKey = `${sessionId}:1`;
        assert.equal((await a.appendAt(alice, 0, [header(sessionId), loaded(0, "alpha")], { idempotencyKey, answer: "alice" })).status, "ok");
        assert.deepEqual(await b.read(bob, 0, { idempotencyKey }), { records: [], nextSeq: 0, diagnostics: [] });
        assert.deepEqual(await b.appendAt(bob, 0, [header(sessionId)], { idempotencyKey, answer: "bob" }), { status: "ok", nextSeq: 1 });
        assert.equal((await a.read(alice, 0, { idempotencyKey })).answer, "alice");
        assert.equal((await a.read(bob, 0, { idempotencyKey })).answer, "bob");
        assert.equal((await a.read(alice)).nextSeq, 2);
      } finally {
        await close();
      }
    });

    it("hands each idle session to one claimer, and none that was touched since", async () => {
      const { a, b, close } = await open();
      try {
        const idle = freshKey();
        const busy = freshKey();
        await a.touch(idle);
        await a.touch(busy);
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 50));
        await b.touch(busy);
        const [first, second] = await Promise.all([a.claimIdle(IDLE_MS, 100), b.claimIdle(IDLE_MS, 100)]);
        const claimed = [...first, ...second].filter((k) => k.sessionId === idle.sessionId || k.sessionId === busy.sessionId);
        assert.deepEqual(claimed, [idle]);
        assert.deepEqual((await a.claimIdle(IDLE_MS, 100)).filter((k) => k.sessionId === idle.sessionId), []);
        await a.forget(busy);
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 50));
        assert.deepEqual((await a.claimIdle(IDLE_MS, 100)).filter((k) => k.sessionId === busy.sessionId), []);
      } finally {
        await close();
      }
    });

    it("delivers a published message to every subscriber, up to 7,999 bytes and not one more", async () => {
      const { a, b, close } = await open();
      try {
        const tag = randomUUID();
        const seenA: StoreMessage[] = [];
        const seenB: StoreMessage[] = [];
        let check = (): void => {};
        const both = new Promise<void>((resolve) => {
          check = () => {
            if (seenA.length > 0 && seenB.length > 0) resolve();
          };
        });
        // Both subscriptions are listening before anything is published: a message sent before a
        // LISTEN lands is never delivered, and a sleep only guesses how long that takes.
        const subscriptions = await Promise.all([
          a.subscribe((m) => m.tag === tag && (seenA.push(m), check())),
          b.subscribe((m) => m.tag === tag && (seenB.push(m), check())),
        ]);
        const base = JSON.stringify({ tag, pad: "" }).length;
        const largest = { tag, pad: "x".repeat(MAX_MESSAGE_BYTES - base) };
        assert.equal(JSON.stringify(largest).length, MAX_MESSAGE_BYTES);
        await assert.rejects(a.publish({ tag, pad: "x".repeat(MAX_MESSAGE_BYTES - base + 1) }), RangeError);
        await a.publish(largest);
        await both;
        assert.deepEqual(seenA, [largest]);
        assert.deepEqual(seenB, [largest]);
        await Promise.all(subscriptions.map((s) => s.close()));
      } finally {
        await close();
      }
    });

    it("refuses work after close", async () => {
      const { a, close } = await open();
      await close();
      await assert.rejects(a.read(freshKey()), /closed/);
    });
  });
}
