/**
 * Which replicas share a store, and what each serves. Every server on a shared store appends a
 * heartbeat to the store itself, through the same `SessionStore` interface its conversations use
 * (no table, no connection of its own): a session header whose `id` names the replica and whose
 * `registryDigest` says what it serves, in a stream of the reserved principal `skillport:replicas`,
 * one stream per UTC hour so a reader never reads more than two hours of beats. `doctor --store`
 * reads the recent beats and says when replicas serve different digests.
 */
import * as os from "node:os";
import type { SessionHeaderRecord } from "./records.js";
import type { SessionKey, SessionStore } from "./store.js";

/** No conversation's principal looks like this: scope principals start with `agent:` or `project:`, or are empty. */
export const REPLICAS_PRINCIPAL = "skillport:replicas";
/** How often a replica says it is alive. */
export const REPLICA_HEARTBEAT_MS = 60_000;
/** A replica heard from within this long counts as serving; three beats, so one lost beat does not drop it. */
export const REPLICA_SEEN_WITHIN_MS = 3 * REPLICA_HEARTBEAT_MS;
/** Appends that lost the race to another replica's beat and try again at the new end. */
const MAX_APPEND_ATTEMPTS = 20;

export interface ReplicaBeat {
  /** `host:pid:port`, or what the server was told to call itself. */
  replica: string;
  registryDigest: string;
  /** ISO time of the latest beat. */
  lastSeen: string;
}

/** The stream of the UTC hour `at` falls in. */
export function replicaStreamKey(at: Date): SessionKey {
  return { principal: REPLICAS_PRINCIPAL, sessionId: `replicas-${at.toISOString().slice(0, 13)}` };
}

export function defaultReplicaName(port: number): string {
  return `${os.hostname()}:${process.pid}:${port}`;
}

/** Appends one beat at the end of the current hour's stream, whoever else is appending. */
export async function announceReplica(store: SessionStore, replica: string, registryDigest: string, now: Date = new Date()): Promise<void> {
  const key = replicaStreamKey(now);
  const beat: SessionHeaderRecord = {
    type: "session",
    v: 1,
    time: now.toISOString(),
    id: replica,
    compaction: "carry",
    carryBudgetBytes: 0,
    registryDigest,
  };
  // An hour holds a few beats per replica per minute at most: reading it whole is cheap.
  let expected = (await store.read(key)).nextSeq;
  for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt += 1) {
    const result = await store.appendAt(key, expected, [beat]);
    if (result.status !== "conflict") return;
    expected = result.nextSeq;
  }
  throw new Error(`could not append a replica heartbeat after ${MAX_APPEND_ATTEMPTS} attempts: the stream kept moving`);
}

/**
 * Beats at start and every `intervalMs` (the digest asked for each time), and whenever `beat()` is
 * called (a refresh that changed what is served). A failed beat is reported, never thrown: a
 * replica keeps serving while its store is briefly unreachable.
 */
export function startReplicaHeartbeat(
  store: SessionStore,
  replica: string,
  registryDigest: () => Promise<string>,
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): { first: Promise<void>; beat(): Promise<void>; stop(): void } {
  const beat = async (): Promise<void> => {
    try {
      await announceReplica(store, replica, await registryDigest());
    } catch (error) {
      options.onError?.(error);
    }
  };
  const first = beat();
  const timer = setInterval(() => void beat(), options.intervalMs ?? REPLICA_HEARTBEAT_MS);
  timer.unref();
  return { first, beat, stop: () => clearInterval(timer) };
}

/** The latest beat of every replica heard from within `withinMs` of `now`, by replica name. */
export async function recentReplicas(store: SessionStore, now: Date = new Date(), withinMs: number = REPLICA_SEEN_WITHIN_MS): Promise<ReplicaBeat[]> {
  const since = now.getTime() - withinMs;
  const latest = new Map<string, ReplicaBeat>();
  // Every hour the window touches: the current one and, near its start, the one before.
  const hours = new Set([replicaStreamKey(new Date(since)).sessionId, replicaStreamKey(now).sessionId]);
  for (const sessionId of hours) {
    const { records } = await store.read({ principal: REPLICAS_PRINCIPAL, sessionId });
    for (const { record } of records) {
      if (record.type !== "session" || typeof record.registryDigest !== "string") continue;
      const at = Date.parse(record.time);
      if (!(at >= since) || at > now.getTime() + withinMs) continue;
      const seen = latest.get(record.id);
      if (!seen || Date.parse(seen.lastSeen) <= at) latest.set(record.id, { replica: record.id, registryDigest: record.registryDigest, lastSeen: record.time });
    }
  }
  return [...latest.values()].sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : 0));
}

/** Replicas grouped by the digest they serve, most replicas first; more than one group is a divergence. */
export function replicasByDigest(beats: readonly ReplicaBeat[]): Array<{ registryDigest: string; replicas: string[] }> {
  const groups = new Map<string, string[]>();
  for (const beat of beats) groups.set(beat.registryDigest, [...(groups.get(beat.registryDigest) ?? []), beat.replica]);
  return [...groups.entries()]
    .map(([registryDigest, replicas]) => ({ registryDigest, replicas }))
    .sort((a, b) => b.replicas.length - a.replicas.length || (a.registryDigest < b.registryDigest ? -1 : 1));
}
