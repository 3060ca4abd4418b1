/**
 * The MCP Skills Extension (SEP-2640, `io.modelcontextprotocol/skills`) on one connection's MCP
 * server, built on the SDK 1.x `Server` with custom request handlers: `skills/list`,
 * `skills/get`, the `skill://` resources (`resources/list`, `resources/templates/list`,
 * `resources/read`) and `resources/directory/read`. What the connection may see is decided per
 * request by its scope (`skills()`), so policy and skill changes apply at once.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { ProtocolError } from "./protocol-error.js";
import * as z from "zod/v4";
import { showInvisible } from "../audit/invisible.js";
import { readConfinedBytes } from "../package/confined-read.js";
import type { RegisteredSkill } from "../registry/types.js";
import { buildSkillEntry, compare, DigestCache, grantsIgnoredNote, SKILL_LIMITS, type ServedSkill, type SkillEntry } from "./skill-entry.js";
import { parseSkillUri, SKILL_SCHEME, skillUri } from "./skill-uri.js";

export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";
export const DIRECTORY_MIME_TYPE = "inode/directory";
/** The `_meta` key of a SKILL.md served without the grants the trust rule ignores (SECURITY.md). */
export const GRANTS_IGNORED_META = "io.skillport/grants-ignored";
/** Entries (or directory children, or resources) per page. */
export const SKILLS_PAGE_SIZE = 100;

/** Declared in the `Server` constructor: the extension, inline settings, and the base `resources` it serves files through. */
export const SKILLS_EXTENSION_CAPABILITIES = {
  resources: { listChanged: true },
  extensions: { [SKILLS_EXTENSION_ID]: { directoryRead: true } },
} as const;

/**
 * Result caching fields (2026-07-28 `CacheableResult`). Skills change on disk at any moment and
 * a scope's policy decides what a connection sees, so nothing is cached for long or shared.
 */
const CACHE_FIELDS = { ttlMs: 0, cacheScope: "private" as const };

export interface SkillsExtensionSource {
  /** The skills this connection may see through the extension, in any order. */
  skills(): readonly RegisteredSkill[];
  /** Every source's root directory: one inside a skill's folder is not part of that skill's package. */
  sourceRoots(): readonly string[];
  /**
   * Why the audit keeps a skill out of the extension, the rest of its package judged the first
   * time it is asked (SPEC §12); null when nothing does. Optional: without it nothing is kept out.
   */
  blockedReason?(skill: RegisteredSkill): Promise<string | null>;
  /** A skill left out of the extension, and why; called again only when the reason changes. */
  report(skill: RegisteredSkill, reason: string): void;
  /** A skill published with `metadata` values left out (they are not text); said once per change, like `report`. */
  reportLeftOut?(skill: RegisteredSkill, leftOut: readonly string[]): void;
}

export interface SkillsExtension {
  /** Sends `notifications/resources/list_changed`. */
  notifyChanged(): Promise<void>;
}

const paginated = z.object({ cursor: z.string().optional() }).passthrough();
const ListSkillsRequest = z.object({ method: z.literal("skills/list"), params: paginated.optional() });
const GetSkillRequest = z.object({ method: z.literal("skills/get"), params: z.object({ uri: z.string() }).passthrough() });
const ReadDirectoryRequest = z.object({
  method: z.literal("resources/directory/read"),
  params: z.object({ uri: z.string(), cursor: z.string().optional() }).passthrough(),
});

/** One digest cache per process: files are the same files whichever connection asks. */
const digests = new DigestCache();
/**
 * Why each left-out skill (by directory) was last reported, per process: a server with many
 * connections says it once, and again only when the reason changes.
 */
const reported = new Map<string, string>();

export function attachSkillsExtension(server: Server, source: SkillsExtensionSource): SkillsExtension {

  /** The entry of one skill, or null (reported) when the extension does not publish it. */
  const serve = async (skill: RegisteredSkill): Promise<ServedSkill | null> => {
    const blocked = (await source.blockedReason?.(skill)) ?? null;
    const built = blocked !== null ? { ok: false as const, reason: blocked } : await buildSkillEntry(skill, digests, source.sourceRoots());
    if (built.ok) {
      const note = built.served.leftOut.length > 0 ? `left out: ${built.served.leftOut.join(", ")}` : undefined;
      if (note === undefined) reported.delete(skill.dir);
      else if (reported.get(skill.dir) !== note) {
        reported.set(skill.dir, note);
        source.reportLeftOut?.(skill, built.served.leftOut);
      }
      return built.served;
    }
    if (reported.get(skill.dir) !== built.reason) {
      reported.set(skill.dir, built.reason);
      source.report(skill, built.reason);
    }
    return null;
  };

  const candidates = (): Array<{ uri: string; skill: RegisteredSkill }> =>
    source
      .skills()
      .map((skill) => ({ uri: skillUri(skill.name, "SKILL.md"), skill }))
      .sort((a, b) => compare(a.uri, b.uri));

  /** A page of published skills after `cursor`; a left-out skill takes no place on the page. */
  const servedPage = async (cursor: string | undefined): Promise<{ page: ServedSkill[]; nextCursor?: string }> => {
    const all = candidates();
    let index = 0;
    if (cursor !== undefined) {
      const after = decodeCursor(cursor);
      index = all.findIndex((candidate) => compare(candidate.uri, after) > 0);
      if (index === -1) index = all.length;
    }
    const page: ServedSkill[] = [];
    for (; index < all.length && page.length < SKILLS_PAGE_SIZE; index++) {
      const served = await serve(all[index]!.skill);
      if (served) page.push(served);
    }
    return index < all.length ? { page, nextCursor: encodeCursor(all[index - 1]!.uri) } : { page };
  };

  /** The published skill a `skill://` URI belongs to, or -32602 when there is none for this connection. */
  const servedFor = async (uri: string): Promise<{ served: ServedSkill; relPath: string }> => {
    const parsed = parseSkillUri(uri);
    const skill = parsed ? source.skills().find((candidate) => candidate.name === parsed.skillName) : undefined;
    const served = skill ? await serve(skill) : null;
    if (!parsed || !served) throw unknown(uri);
    return { served, relPath: parsed.relPath };
  };

  server.setRequestHandler(ListSkillsRequest, async (request) => {
    const { page, nextCursor } = await servedPage(request.params?.cursor);
    return { skills: page.map((served) => served.entry), ...(nextCursor ? { nextCursor } : {}), resultType: "complete", ...CACHE_FIELDS };
  });

  server.setRequestHandler(GetSkillRequest, async (request) => {
    const { served, relPath } = await servedFor(request.params.uri);
    if (relPath !== "SKILL.md") throw new ProtocolError(ErrorCode.InvalidParams, `No skill is served at ${request.params.uri}: a skill is named by its SKILL.md URI`);
    return { skill: served.entry, resultType: "complete", ...CACHE_FIELDS };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const { page, nextCursor } = await servedPage(request.params?.cursor);
    const resources: Resource[] = page.map(({ entry }) => manifestResource(entry));
    return { resources, ...(nextCursor ? { nextCursor } : {}) };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${SKILL_SCHEME}{+path}`,
        name: "skills",
        title: "Skill files",
        description: "Every file of every skill this server serves: skill://<skill name>/<path in the skill>. skills/list gives each file's digest and size.",
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const { served, relPath } = await servedFor(uri);
    const file = served.files.get(skillUri(served.skill.name, relPath));
    if (!file) {
      if (served.dirs.has(relPath)) throw new ProtocolError(ErrorCode.InvalidParams, `${uri} is a directory; read it with resources/directory/read`);
      throw unknown(uri);
    }
    // SKILL.md is served as the entry was built from it (read just now, its frontmatter as published).
    const read =
      file.path === "SKILL.md"
        ? { ok: true as const, bytes: served.manifest }
        : await readConfinedBytes(served.skill.dir, file.path, { maxBytes: SKILL_LIMITS.bytes, sourceRoots: served.sourceRoots });
    if (!read.ok) throw new ProtocolError(ErrorCode.InvalidParams, `${uri}: ${read.message}`);
    const text = decodeUtf8(read.bytes);
    const canonical = skillUri(served.skill.name, file.path);
    // Said beside the file too, for a client that shows the resource's metadata and not its text.
    const note = file.path === "SKILL.md" && served.grantsIgnored.length > 0 ? { _meta: { [GRANTS_IGNORED_META]: grantsIgnoredNote(served.grantsIgnored) } } : {};
    return {
      contents: [
        text === null
          ? { uri: canonical, mimeType: file.mimeType, blob: read.bytes.toString("base64"), ...note }
          : { uri: canonical, mimeType: file.mimeType, text, ...note },
      ],
    };
  });

  server.setRequestHandler(ReadDirectoryRequest, async (request) => {
    const uri = request.params.uri;
    const { served, relPath } = await servedFor(uri);
    if (!served.dirs.has(relPath)) throw new ProtocolError(ErrorCode.InvalidParams, `${uri} is not a directory resource`);
    const children = childrenOf(served, relPath);
    let start = 0;
    if (request.params.cursor !== undefined) {
      const after = decodeCursor(request.params.cursor);
      start = children.findIndex((child) => compare(child.uri, after) > 0);
      if (start === -1) start = children.length;
    }
    const end = Math.min(children.length, start + SKILLS_PAGE_SIZE);
    const resources = children.slice(start, end);
    return {
      resources,
      ...(end < children.length ? { nextCursor: encodeCursor(resources[resources.length - 1]!.uri) } : {}),
      resultType: "complete",
      ...CACHE_FIELDS,
    };
  });

  return {
    async notifyChanged() {
      await server.sendResourceListChanged();
    },
  };
}

/**
 * SKILL.md as a listed resource: the skill's name and description, as the extension asks. The
 * description is shown with invisible characters written out: nothing verifies it against the
 * file. The entries (`skills/list`, `skills/get`) and the bytes `resources/read` serves stay
 * exactly as on disk, because clients check them against the file and its digest; a skill whose
 * files hide characters is kept from them by the audit instead.
 */
function manifestResource(entry: SkillEntry): Resource {
  const manifest = entry.resources.find((resource) => resource.uri === entry.uri)!;
  return {
    uri: entry.uri,
    name: entry.frontmatter["name"] as string,
    description: showInvisible(entry.frontmatter["description"] as string),
    mimeType: "text/markdown",
    size: manifest.size,
  };
}

/** Direct children of one folder of a skill: files with type and size, folders as `inode/directory`; no trailing slash. */
function childrenOf(served: ServedSkill, relPath: string): Resource[] {
  const prefix = relPath === "" ? "" : `${relPath}/`;
  const isChild = (p: string): boolean => p.startsWith(prefix) && p.length > prefix.length && !p.slice(prefix.length).includes("/");
  const children: Resource[] = [];
  for (const dir of served.dirs) {
    if (dir !== "" && isChild(dir)) children.push({ uri: skillUri(served.skill.name, dir), name: baseName(dir), mimeType: DIRECTORY_MIME_TYPE });
  }
  for (const [uri, file] of served.files) {
    if (isChild(file.path)) children.push({ uri, name: baseName(file.path), mimeType: file.mimeType, size: file.size });
  }
  return children.sort((a, b) => compare(a.uri, b.uri));
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

function unknown(uri: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, `No skill file is served at ${uri}`);
}

const CURSOR_PREFIX = "after:";

function encodeCursor(uri: string): string {
  return Buffer.from(CURSOR_PREFIX + uri, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  if (!decoded.startsWith(CURSOR_PREFIX)) throw new ProtocolError(ErrorCode.InvalidParams, "Invalid cursor");
  return decoded.slice(CURSOR_PREFIX.length);
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
