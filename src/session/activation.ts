/**
 * Reading activations back out of persisted tool messages. The `loaded` envelope is a durable
 * contract (SPEC §4): hosts store it, and this is the one place that decides whether a stored
 * message is a fresh activation.
 */
import type { EnvironmentAccess, ResourceFiles } from "../tool/envelope.js";

export interface SkillActivation {
  name: string;
  content: string;
  resourceFiles?: ResourceFiles;
  environmentAccess?: EnvironmentAccess;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function resourceFilesOf(value: unknown): ResourceFiles | undefined {
  if (!isObject(value) || typeof value.guidance !== "string" || !isStringList(value.files)) return undefined;
  return { guidance: value.guidance, files: [...value.files] };
}

function environmentAccessOf(value: unknown): EnvironmentAccess | undefined {
  if (!isObject(value) || typeof value.guidance !== "string" || !isStringList(value.names)) return undefined;
  return { guidance: value.guidance, names: [...value.names] };
}

/**
 * The activation an envelope carries, or null when it carries none: failures, listings, file
 * reads, `already_active` stubs and compaction digests (which keep `status: "loaded"` but drop
 * `content`). Malformed optional fields are dropped rather than voiding the activation, because
 * the instructions themselves are intact.
 */
export function activationFromEnvelope(envelope: unknown): SkillActivation | null {
  if (!isObject(envelope) || envelope.ok !== true || envelope.error !== null) return null;
  const data = envelope.data;
  if (!isObject(data) || data.status !== "loaded") return null;
  if (typeof data.name !== "string" || data.name.trim() === "" || typeof data.content !== "string") return null;
  const activation: SkillActivation = { name: data.name, content: data.content };
  const resourceFiles = resourceFilesOf(data.resource_files);
  if (resourceFiles) activation.resourceFiles = resourceFiles;
  const environmentAccess = environmentAccessOf(data.environment_access);
  if (environmentAccess) activation.environmentAccess = environmentAccess;
  return activation;
}

/**
 * Parses a persisted `{ role: "tool", name: "skill", content }` message, where `content` is the
 * envelope as an object or as its JSON text.
 */
export function skillToolActivation(message: unknown): SkillActivation | null {
  if (!isObject(message) || message.role !== "tool" || message.name !== "skill") return null;
  let envelope: unknown = message.content;
  if (typeof envelope === "string") {
    try {
      envelope = JSON.parse(envelope);
    } catch {
      return null;
    }
  }
  return activationFromEnvelope(envelope);
}
