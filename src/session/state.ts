/**
 * Conversation state as a fold over log records. The live session and a restore both move
 * state only through `applyRecord`, so replaying a log cannot disagree with the run that
 * wrote it.
 */
import { activationFromEnvelope } from "./activation.js";
import type { ActivationFacts, SessionRecord } from "./records.js";

/** A skill whose instructions are in effect in the current compaction epoch. */
export interface ActiveSkill {
  name: string;
  content: string;
  /** Increases with every fresh activation; larger is newer. */
  order: number;
  facts: ActivationFacts;
  /** The `environment_access.guidance` the model was given, repeated when the body is carried. */
  envGuidance: string | null;
}

export interface ConversationState {
  epoch: number;
  /** By name: dedup compares the content held here, and the latest activation replaces it. */
  active: Map<string, ActiveSkill>;
  /**
   * Every skill loaded in this conversation, in first-load order, with the union of the `tools`
   * it declared over all its activations (null while it never declared any). Narrowing is the
   * fail-closed direction, so a later version that drops `tools` cannot lift it; compaction never
   * removes an entry either: only the end of the conversation unloads.
   */
  loaded: Map<string, { tools: string[] | null }>;
  /** Loading results still verbatim in the host's transcript, keyed by tool-call id. */
  retained: Array<{ toolCallId: string; name: string }>;
  carried: string | null;
  reminder: string | null;
  /** The pinned catalog text; null until first built, and again after a commit or clear. */
  catalog: string | null;
  activations: number;
  /** An end record was applied: the conversation takes no more calls. */
  ended: boolean;
  /**
   * The sha256 of each skill's SKILL.md as this conversation last read or wrote it (SPEC §11):
   * `skill_manage` refuses an edit of a file that is no longer that version.
   */
  skillFiles: Map<string, string>;
}

export function emptyState(): ConversationState {
  return {
    epoch: 0,
    active: new Map(),
    loaded: new Map(),
    retained: [],
    carried: null,
    reminder: null,
    catalog: null,
    activations: 0,
    ended: false,
    skillFiles: new Map(),
  };
}

/** Ends the conversation: everything loaded, carried, granted or pinned is forgotten. */
function resetConversation(state: ConversationState): void {
  state.epoch += 1;
  state.active.clear();
  state.loaded.clear();
  state.retained = [];
  state.carried = null;
  state.reminder = null;
  state.catalog = null;
  state.skillFiles.clear();
}

/** Facts for an activation logged without them: everything a stored envelope can tell. */
function factsFromEnvelope(names: string[] | undefined): ActivationFacts {
  return { tools: null, allowedTools: null, env: names ?? [] };
}

export function applyRecord(state: ConversationState, record: SessionRecord): void {
  switch (record.type) {
    case "session":
    case "clear":
      resetConversation(state);
      return;
    case "catalog":
      state.catalog = record.text;
      return;
    case "end":
      state.ended = true;
      return;
    case "call": {
      if (record.skillFile !== undefined) {
        if (record.skillFile.sha256 === null) state.skillFiles.delete(record.skillFile.name);
        else state.skillFiles.set(record.skillFile.name, record.skillFile.sha256);
      }
      const activation = activationFromEnvelope(record.envelope);
      if (!activation) return;
      const facts = record.activation ?? factsFromEnvelope(activation.environmentAccess?.names);
      state.activations += 1;
      state.active.set(activation.name, {
        name: activation.name,
        content: activation.content,
        order: state.activations,
        facts,
        envGuidance: activation.environmentAccess?.guidance ?? null,
      });
      state.loaded.set(activation.name, { tools: accumulatedTools(state.loaded.get(activation.name)?.tools ?? null, facts.tools) });
      if (record.toolCallId !== null) state.retained.push({ toolCallId: record.toolCallId, name: activation.name });
      return;
    }
    case "checkpoint": {
      if (record.phase !== "commit") return;
      const kept = new Set(record.kept);
      for (const name of [...state.active.keys()]) if (!kept.has(name)) state.active.delete(name);
      state.epoch += 1;
      state.retained = [];
      state.carried = record.result.carried;
      state.reminder = record.result.reminder;
      // The catalog is rebuilt from the live registry the next time the host asks for it.
      state.catalog = null;
      return;
    }
  }
}

/** Declared tools so far plus this activation's, in first-declared order; a declaration is never undone. */
function accumulatedTools(sofar: string[] | null, declared: string[] | null): string[] | null {
  if (declared === null) return sofar;
  return [...new Set([...(sofar ?? []), ...declared])];
}

/** Whether `skill(name)` with this exact content would only repeat what is already in effect. */
export function isAlreadyActive(state: ConversationState, name: string, content: string): boolean {
  return state.active.get(name)?.content === content;
}

/** Active skills, newest activation first. */
export function activeNewestFirst(state: ConversationState): ActiveSkill[] {
  return [...state.active.values()].sort((a, b) => b.order - a.order);
}

/** Active skills in activation order. */
export function activeInOrder(state: ConversationState): ActiveSkill[] {
  return [...state.active.values()].sort((a, b) => a.order - b.order);
}
