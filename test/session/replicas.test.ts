import assert from "node:assert/strict";
import { test } from "node:test";
import { announceReplica, recentReplicas, replicasByDigest, replicaStreamKey, REPLICA_SEEN_WITHIN_MS, startReplicaHeartbeat } from "../../src/session/replicas.js";
import { postgresStore } from "../../src/session/store-postgres.js";
import { memoryStore } from "../../src/session/store.js";
import { freshDatabase } from "../support/postgres.js";

const db = await freshDatabase();

test("a replica heard from exactly at the window's edge counts; one millisecond older does not", async () => {
  const store = memoryStore();
  const now = new Date("2026-12-01T10:30:00.000Z");
  await announceReplica(store, "edge", "sha256-a", new Date(now.getTime() - REPLICA_SEEN_WITHIN_MS));
  await announceReplica(store, "stale", "sha256-b", new Date(now.getTime() - REPLICA_SEEN_WITHIN_MS - 1));
  assert.deepEqual(await recentReplicas(store, now), [{ replica: "edge", registryDigest: "sha256-a", lastSeen: "2026-12-01T10:27:00.000Z" }]);
});

test("the latest beat of each replica wins, across the hour a window straddles", async () => {
  const store = memoryStore();
  const now = new Date("2026-12-01T11:01:00.000Z");
  await announceReplica(store, "r1", "sha256-old", new Date("2026-12-01T10:59:00.000Z"));
  await announceReplica(store, "r1", "sha256-new", new Date("2026-12-01T11:00:30.000Z"));
  await announceReplica(store, "r2", "sha256-old", new Date("2026-12-01T10:59:30.000Z"));
  assert.notEqual(replicaStreamKey(new Date("2026-12-01T10:59:00.000Z")).sessionId, replicaStreamKey(now).sessionId);
  const beats = await recentReplicas(store, now);
  assert.deepEqual(
    beats.map((b) => [b.replica, b.registryDigest]),
    [
      ["r1", "sha256-new"],
      ["r2", "sha256-old"],
    ],
  );
  assert.deepEqual(replicasByDigest(beats), [
    { registryDigest: "sha256-new", replicas: ["r1"] },
    { registryDigest: "sha256-old", replicas: ["r2"] },
  ]);
  assert.deepEqual(replicasByDigest([...beats, { replica: "r3", registryDigest: "sha256-old", lastSeen: now.toISOString() }])[0], { registryDigest: "sha256-old", replicas: ["r2", "r3"] });
});

test("beats from many replicas at once all land, in one stream without gaps (PostgreSQL)", { skip: db.skip ?? false }, async () => {
  const stores = await Promise.all([postgresStore(db.url!), postgresStore(db.url!), postgresStore(db.url!)]);
  try {
    const now = new Date();
    await Promise.all(stores.flatMap((store, index) => Array.from({ length: 5 }, () => announceReplica(store, `r${index}`, `sha256-${index % 2}`, now))));
    const read = await stores[0]!.read(replicaStreamKey(now));
    assert.equal(read.records.length, 15);
    read.records.forEach((entry, position) => assert.equal(entry.seq, position));
    assert.deepEqual(replicasByDigest(await recentReplicas(stores[1]!, now)), [
      { registryDigest: "sha256-0", replicas: ["r0", "r2"] },
      { registryDigest: "sha256-1", replicas: ["r1"] },
    ]);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});

test("a heartbeat reports its digest at once and never throws when the store fails", async () => {
  const store = memoryStore();
  const heartbeat = startReplicaHeartbeat(store, "r1", async () => "sha256-x");
  await heartbeat.first;
  heartbeat.stop();
  assert.deepEqual((await recentReplicas(store)).map((b) => b.registryDigest), ["sha256-x"]);
  await store.close();
  const errors: unknown[] = [];
  const failing = startReplicaHeartbeat(store, "r1", async () => "sha256-x", { onError: (error) => errors.push(error) });
  await failing.first;
  failing.stop();
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /closed/);
});
