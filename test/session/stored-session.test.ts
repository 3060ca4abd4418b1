/**
 * Sessions on a shared store: two runtimes over the same skills stand for two replicas, each
 * with its own connection to the store, continuing one conversation.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";
import { SessionGoneError } from "../../src/session/stored-session.js";
import { memoryStore, type SessionStore } from "../../src/session/store.js";
import { postgresStore } from "../../src/session/store-postgres.js";
import { freshDatabase } from "../support/postgres.js";
import type { Envelope } from "../../src/tool/envelope.js";
import { skillRoot } from "./host.js";

const db = await freshDatabase();

function statusOf(envelope: Envelope): string | undefined {
  return (envelope.data as { status?: string } | null)?.status;
}

interface Replicas {
  a: SkillRuntime;
  b: SkillRuntime;
  close(): Promise<void>;
}

const SKILLS = {
  alpha: { frontmatter: "metadata:\n  env: none" },
  beta: {},
  gamma: { body: "# gamma\n\n" + "Step. ".repeat(50) },
};

async function replicasOn(openStore: () => Promise<SessionStore>, shared: boolean): Promise<Replicas> {
  const root = skillRoot(SKILLS);
  const storeA = await openStore();
  const storeB = shared ? storeA : await openStore();
  const a = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, store: storeA });
  const b = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], env: {}, store: storeB });
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await storeA.close();
      if (!shared) await storeB.close();
    },
  };
}

function storedSessionSuite(name: string, open: () => Promise<Replicas>, skip: string | false = false): void {
  describe(`stored sessions (${name})`, { skip }, () => {
    it("writes the header with the registry digest and the client before anything else", async () => {
      const { a, close } = await open();
      try {
        const session = await a.createStoredSession({ client: { protocolVersion: "2025-06-18", capabilities: { roots: {} } } });
        const history = await session.history();
        assert.deepEqual(history.map((r) => r.type), ["session", "catalog"]);
        const header = history[0]!;
        assert.ok(header.type === "session");
        assert.equal(header.registryDigest, await a.registryDigest());
        assert.deepEqual(header.client, { protocolVersion: "2025-06-18", capabilities: { roots: {} } });
        assert.match(session.pinnedCatalog() ?? "", /<name>alpha<\/name>/);
      } finally {
        await close();
      }
    });

    it("continues a conversation on another replica with dedup intact", async () => {
      const { a, b, close } = await open();
      try {
        const first = await a.createStoredSession();
        assert.equal(statusOf(await first.call({ name: "alpha" })), "loaded");
        const second = await b.openStoredSession(first.id);
        assert.deepEqual(second.loaded(), ["alpha"]);
        assert.equal(statusOf(await second.call({ name: "alpha" })), "already_active");
        // The first replica's copy is behind; its next call catches up before deciding.
        assert.equal(statusOf(await first.call({ name: "alpha" })), "already_active");
      } finally {
        await close();
      }
    });

    it("turns a racing repeat activation into already_active: one loaded per epoch, whichever replica wins", async () => {
      const { a, b, close } = await open();
      try {
        const onA = await a.createStoredSession();
        const onB = await b.openStoredSession(onA.id);
        const results = await Promise.all([onA.call({ name: "beta" }), onB.call({ name: "beta" }), onA.call({ name: "beta" }), onB.call({ name: "beta" })]);
        const statuses = results.map((r) => (r.data as { status: string }).status).sort();
        assert.deepEqual(statuses, ["already_active", "already_active", "already_active", "loaded"]);
        const calls = (await onA.history()).filter((r) => r.type === "call");
        assert.deepEqual(calls.map((r) => r.type === "call" && r.seq), [0, 1, 2, 3]);
      } finally {
        await close();
      }
    });

    it("answers a retried call with the stored answer and records it once", async () => {
      const { a, b, close } = await open();
      try {
        const onA = await a.createStoredSession();
        const onB = await b.openStoredSession(onA.id);
        const idempotencyKey = `${onA.id}:1`;
        const first = await onA.invoke({ name: "gamma" }, { toolCallId: "1", idempotencyKey });
        const retried = await onB.invoke({ name: "gamma" }, { toolCallId: "1", idempotencyKey });
        assert.deepEqual(retried, first);
        assert.equal((first.envelope.data as { status: string }).status, "loaded");
        const calls = (await onB.history()).filter((r) => r.type === "call");
        assert.equal(calls.length, 1);
      } finally {
        await close();
      }
    });

    it("acts on a request that reuses an idempotency key for other arguments, instead of answering it with another call's result", async () => {
      const { a, b, close } = await open();
      try {
        const onA = await a.createStoredSession();
        const onB = await b.openStoredSession(onA.id);
        const idempotencyKey = `${onA.id}:0`;
        assert.equal(statusOf((await onA.invoke({ name: "gamma" }, { idempotencyKey })).envelope), "loaded");
        // A restarted client counting its request ids from 0 again, on another replica.
        const reused = await onB.invoke({ name: "beta" }, { idempotencyKey });
        assert.equal((reused.envelope.data as { name?: string }).name, "beta");
        assert.equal(statusOf(reused.envelope), "loaded");
        // The same request again is still a retry of the first.
        assert.equal(statusOf((await onB.invoke({ name: "gamma" }, { idempotencyKey })).envelope), "loaded");
        assert.equal((await onA.history()).filter((r) => r.type === "call").length, 2);
      } finally {
        await close();
      }
    });

    it("restores from the store the same state as the live session, after compaction on another replica", async () => {
      const { a, b, close } = await open();
      try {
        const live = await a.createStoredSession({ carryBudgetBytes: 100 });
        await live.call({ name: "alpha" }, { toolCallId: "c1" });
        await live.call({ name: "gamma" }, { toolCallId: "c2" });
        const other = await b.openStoredSession(live.id);
        const checkpoint = await other.beginCompaction();
        const result = await checkpoint.commit();
        assert.deepEqual(Object.keys(result.digests).sort(), ["c1", "c2"]);
        await live.call({ name: "beta" });
        const restored = await b.openStoredSession(live.id);
        for (const view of ["loaded", "envGrants", "preApprovedTools", "narrowsSurfaceTo", "carriedState", "stats"] as const) {
          assert.deepEqual(restored[view](), live[view](), view);
        }
        assert.equal(restored.carriedState().epoch, live.carriedState().epoch);
        // gamma's body did not fit 100 bytes: its dedup reset, so it loads afresh.
        assert.equal(statusOf(await restored.call({ name: "gamma" })), "loaded");
        assert.equal(statusOf(await live.call({ name: "alpha" })), "already_active");
      } finally {
        await close();
      }
    });

    it("ends a conversation for every replica, once", async () => {
      const { a, b, close } = await open();
      try {
        const onA = await a.createStoredSession();
        await onA.call({ name: "alpha" });
        const onB = await b.openStoredSession(onA.id);
        const ends = await Promise.all([onA.end("deleted"), onB.end("deleted")]);
        assert.deepEqual(ends.sort(), [false, true]);
        await assert.rejects(onA.call({ name: "beta" }), SessionGoneError);
        await assert.rejects(b.openStoredSession(onA.id), SessionGoneError);
        await assert.rejects(a.openStoredSession("no-such-session"), /not in the store/);
        const history = await onB.history();
        assert.deepEqual(history.filter((r) => r.type === "end").length, 1);
      } finally {
        await close();
      }
    });

    it("keeps a scope's conversation to that scope", async () => {
      const { a, close } = await open();
      try {
        const mine = await a.createStoredSession({ agentId: "alice" });
        await assert.rejects(a.openStoredSession(mine.id, { agentId: "bob" }), SessionGoneError);
        await assert.rejects(a.openStoredSession(mine.id), SessionGoneError);
        assert.equal((await a.openStoredSession(mine.id, { agentId: "alice" })).id, mine.id);
      } finally {
        await close();
      }
    });
  });
}

storedSessionSuite("memory", () => replicasOn(async () => memoryStore(), true));
storedSessionSuite("postgres", () => replicasOn(() => postgresStore(db.url!), false), db.skip ?? false);

describe("runtime without a store", () => {
  it("says how to get one", async () => {
    const runtime = await createSkillRuntime({ sources: [], env: {} });
    assert.equal(runtime.store, null);
    await assert.rejects(runtime.createStoredSession(), /createSkillRuntime\(\{ store \}\)/);
    await runtime.close();
  });
});
