/**
 * The multi-replica test's own view of the shared store, through the library: reading a
 * conversation's records, compacting a conversation (the MCP surface has no compaction; a host
 * compacts through the library, on the same store the replicas use), and restoring one to see
 * what it would decide next. One store client and one runtime for the whole test file.
 */
import { openSessionStore } from "../../src/session/open-store.js";
import { memoryStore, scopePrincipal, type SessionStore, type StoreRead } from "../../src/session/store.js";
import { createSkillRuntime, type SkillRuntime } from "../../src/runtime.js";

export type StoredConversation = StoreRead;

interface Shared {
  runtime: SkillRuntime;
  store: SessionStore;
}

let shared: Promise<Shared> | undefined;

function open(storeUrl: string, skillsDir: string): Promise<Shared> {
  shared ??= (async () => {
    const store = await openSessionStore(storeUrl);
    const runtime = await createSkillRuntime({ sources: [{ path: skillsDir, origin: "global" }], cwd: skillsDir, home: skillsDir, store });
    return { runtime, store };
  })();
  return shared;
}

export async function closeShared(): Promise<void> {
  if (!shared) return;
  const { store, runtime } = await shared;
  shared = undefined;
  await runtime.close();
  await store.close();
}

const keyOf = (sessionId: string) => ({ principal: scopePrincipal({}), sessionId });

export async function readConversation(storeUrl: string, skillsDir: string, sessionId: string): Promise<StoredConversation> {
  const { store } = await open(storeUrl, skillsDir);
  return store.read(keyOf(sessionId));
}

/**
 * Compacts the conversation in reload mode, committing a checkpoint to the shared store: every
 * skill's next activation, on whichever replica, must then be a fresh `loaded`.
 */
export async function compactThroughLibrary(storeUrl: string, skillsDir: string, sessionId: string): Promise<void> {
  const { runtime } = await open(storeUrl, skillsDir);
  const session = await runtime.openStoredSession(sessionId, { compaction: "reload" });
  const checkpoint = await session.beginCompaction();
  await checkpoint.commit();
}

/**
 * What the conversation, restored from the store into a private copy (a memory store holding the
 * same records), answers to an activation of each of `names` in turn; the shared store is not
 * written.
 */
export async function probeRestored(storeUrl: string, skillsDir: string, sessionId: string, names: readonly string[]): Promise<string[]> {
  const { store } = await open(storeUrl, skillsDir);
  const read = await store.read(keyOf(sessionId));
  const copy = memoryStore();
  const appended = await copy.appendAt(keyOf(sessionId), 0, read.records.map((entry) => entry.record));
  if (appended.status !== "ok") throw new Error(`could not copy conversation ${sessionId}: ${appended.status}`);
  const runtime = await createSkillRuntime({ sources: [{ path: skillsDir, origin: "global" }], cwd: skillsDir, home: skillsDir, store: copy });
  try {
    const session = await runtime.openStoredSession(sessionId);
    const answers: string[] = [];
    for (const name of names) {
      const envelope = await session.call({ name });
      answers.push(envelope.ok ? String((envelope.data as { status?: string }).status) : envelope.error!.code);
    }
    return answers;
  } finally {
    await runtime.close();
    await copy.close();
  }
}
