/**
 * The `skill` tool as an MCP server (SPEC §7): one MCP server object per MCP connection, each
 * bound to its own skillport session, so dedup, grants, stats and the log never leak between
 * clients. Transports (stdio, Streamable HTTP) live in their own modules and only connect these.
 */
import { blockedMessage } from "../access/audit-verdict.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { SKILL_MANAGE_TOOL } from "../access/tool-policy.js";
import type { ScopedRegistry, Scope } from "../access/types.js";
import type { RegisteredSkill } from "../registry/types.js";
import type { Session, SessionOptions } from "../session/session.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import * as z from "zod/v4";
import { mcpSessionOptions, type McpDedup } from "./mcp-dedup.js";
import { attachSkillPrompts, SKILL_PROMPTS_CAPABILITIES } from "./mcp-prompts.js";
import { attachSkillsExtension, SKILLS_EXTENSION_CAPABILITIES, SKILLS_EXTENSION_ID } from "./mcp-skills-extension.js";
import { ProtocolError } from "./protocol-error.js";

/** The slice of the runtime an MCP server needs: a session per connection, and what a scope may see. */
export interface McpSessionFactory {
  session(options: SessionOptions): Session;
  registry(scope: Scope): Pick<ScopedRegistry, "toolAvailable" | "all" | "availability" | "sourceRoots" | "blocked" | "audit">;
}

export interface McpServerOptions {
  /** Session options applied to every connection (scope, log location, catalog budget). */
  session: SessionOptions;
  /** Reported to clients as the server's version. */
  version: string;
  /** Where diagnostics go; stdout belongs to the protocol, so never there. */
  log(line: string): void;
  /**
   * Leave the `skill` tool out for clients that declare the Skills Extension themselves: they
   * load skills through it, and a second way to load the same skills only costs their context.
   */
  hideToolFromExtensionClients?: boolean;
  /**
   * Whether a repeated activation on one connection answers `already_active` (`connection`) or
   * every activation answers with the content (`none`, the default): see `mcp-dedup.ts`.
   * `session.dedup`, when set, is taken as it is.
   */
  dedup?: McpDedup;
}

/** One MCP connection: the protocol server and the skillport session behind it. */
export interface McpConnection {
  readonly server: Server;
  readonly session: Session;
  /** True when a `tools/call` of this name reaches the session: the `skill` tool, offered to this client. */
  takesToolCall(name: string): boolean;
  /**
   * Answers a `tools/call` of the `skill` tool (after `takesToolCall`): the one place its result is
   * shaped, for the SDK's handler and for the HTTP server's direct path alike.
   */
  callSkillTool(args: unknown, requestId: string | number): Promise<CallToolResult>;
  /**
   * Tells the client the skills changed: `tools/list_changed` (the catalog rides in the tool
   * description), `resources/list_changed` (the extension) and `prompts/list_changed`.
   */
  notifyToolsChanged(): Promise<void>;
  /** Closes the protocol side and flushes the session log; safe to call twice. */
  close(): Promise<void>;
}

/**
 * The server's `instructions`: a pointer to the catalog, never the catalog itself. The catalog
 * rides in the tool description (the seeds' place for it, and the one that follows
 * `tools/list_changed`); sent in both, it cost a client that shows both twice its context.
 */
const INSTRUCTIONS =
  "This server provides skills: folders of instructions for specialised tasks. The `skill` tool's description " +
  "lists them; when a task matches one, call `skill` with its name to load its instructions before starting.";

/** `tools/call` as MCP defines it, except that `arguments` may be anything: the session judges them. */
const LENIENT_CALL_TOOL_REQUEST = CallToolRequestSchema.extend({
  params: CallToolRequestParamsSchema.extend({ arguments: z.unknown().optional() }),
});

/**
 * One JSON Schema validator for every connection, made on first use. The SDK's `Server` builds
 * an Ajv instance with its formats for each server unless given one: measured here that was most
 * of what a new connection cost (about 5 KB of heap per idle session and a share of its CPU), for
 * a validator only elicitation uses, which this server never sends. Ajv keeps no per-connection
 * state, so sharing it is safe.
 */
let ajv: AjvJsonSchemaValidator | undefined;
const SHARED_SCHEMA_VALIDATOR: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

const TOOL_ANNOTATIONS = { title: "Skills", readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** What the server offers: the tool, the prompts, and the Skills Extension with the resources it serves files through. */
export function mcpServerCapabilities() {
  return { tools: { listChanged: true }, ...SKILL_PROMPTS_CAPABILITIES, ...SKILLS_EXTENSION_CAPABILITIES };
}

/** Builds the server for one connection. `sessionId` names the session (and its log file). */
export function createMcpConnection(
  runtime: McpSessionFactory,
  options: McpServerOptions,
  sessionId?: string,
  /** Capabilities the client declared outside `initialize` (the stateless wire's per-request `_meta`). */
  declaredClientCapabilities?: { extensions?: Record<string, unknown> },
): McpConnection {
  const session = runtime.session({ ...mcpSessionOptions(options.session, options.dedup), ...(sessionId !== undefined ? { id: sessionId } : {}) });
  const catalog = session.catalogText();
  const server = new Server(
    { name: "skillport", version: options.version },
    {
      capabilities: mcpServerCapabilities(),
      jsonSchemaValidator: SHARED_SCHEMA_VALIDATOR,
      // No skills, no instructions: a pointer to an empty catalog would only cost the client's context.
      ...(catalog !== "" ? { instructions: INSTRUCTIONS } : {}),
    },
  );

  // Declared by the client in `initialize`, so known before any request that depends on it.
  const toolWithheld = (): boolean =>
    options.hideToolFromExtensionClients === true &&
    (server.getClientCapabilities() ?? declaredClientCapabilities)?.extensions?.[SKILLS_EXTENSION_ID] !== undefined;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsOf(runtime, session, options, toolWithheld()) }));

  const usable = (): RegisteredSkill[] => usableSkills(runtime, scopeOf(options.session));
  const extension = attachSkillsExtension(server, {
    skills: usable,
    sourceRoots: () => runtime.registry(scopeOf(options.session)).sourceRoots ?? [],
    blockedReason: async (skill) => {
      const blocking = (await runtime.registry(scopeOf(options.session)).audit?.(skill.name))?.blocking;
      return blocking ? blockedMessage(skill.name, blocking) : null;
    },
    report: (skill, reason) => options.log(`skills extension: ${skill.name} (${skill.dir}) is not served: ${reason}`),
    reportLeftOut: (skill, leftOut) =>
      options.log(`skills extension: ${skill.name} (${skill.dir}) is served without ${leftOut.join(", ")}: the extension carries only text in metadata`),
  });
  const prompts = attachSkillPrompts(server, session, { skills: usable });

  // Registered through the base protocol class: the SDK's server checks every `tools/call` against
  // the MCP schema first, so `arguments` that are not an object (an array, a string) came back as
  // a JSON-RPC internal error carrying a raw schema dump, where the library answers the same call
  // with the `invalid_arguments` envelope (SPEC §4, §7). Here the call reaches the session as sent.
  const takesToolCall = (name: string): boolean => name === session.tool.name && !toolWithheld();
  const callSkillTool = async (args: unknown, requestId: string | number): Promise<CallToolResult> => {
    const { envelope, text } = await session.invoke(args ?? {}, { toolCallId: String(requestId) });
    return {
      content: [{ type: "text", text }],
      structuredContent: envelope as unknown as Record<string, unknown>,
      ...(envelope.ok ? {} : { isError: true }),
    };
  };
  Protocol.prototype.setRequestHandler.call(server, LENIENT_CALL_TOOL_REQUEST, async (request, extra): Promise<CallToolResult> => {
    if (request.params.name === SKILL_MANAGE_TOOL && session.manageTool !== null) return callManageTool(request.params.arguments, extra.requestId);
    if (!takesToolCall(request.params.name)) {
      const offered = [...(toolWithheld() ? [] : [session.tool.name]), ...(session.manageTool !== null ? [SKILL_MANAGE_TOOL] : [])];
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. ${offered.length === 1 ? `This server has one tool, \`${offered[0]}\`.` : `This server's tools here: ${offered.map((name) => `\`${name}\``).join(", ") || "none"}.`}`,
      );
    }
    return callSkillTool(request.params.arguments, extra.requestId);
  });

  /**
   * `skill_manage` (SPEC §11): the envelope and its text, like the `skill` tool's. A change is live
   * at once, so this client hears `list_changed` before its answer (other connections hear it
   * through the runtime's change events, with --watch).
   */
  const callManageTool = async (args: unknown, requestId: string | number): Promise<CallToolResult> => {
    const { envelope, text } = await session.invokeManage(args ?? {}, { toolCallId: String(requestId) });
    if (envelope.ok) await connection.notifyToolsChanged();
    return {
      content: [{ type: "text", text }],
      structuredContent: envelope as unknown as Record<string, unknown>,
      ...(envelope.ok ? {} : { isError: true }),
    };
  };

  server.onerror = (error) => options.log(`mcp: ${error.message}`);

  let closed = false;
  const connection: McpConnection = {
    server,
    session,
    takesToolCall,
    callSkillTool,
    async notifyToolsChanged() {
      if (closed) return;
      const sends: Array<[string, () => Promise<void>]> = [
        ["tools/list_changed", () => server.sendToolListChanged()],
        ["resources/list_changed", () => extension.notifyChanged()],
        ["prompts/list_changed", () => prompts.notifyChanged()],
      ];
      for (const [what, send] of sends) {
        try {
          await send();
        } catch (error) {
          // A client that went away mid-notification is closed by its transport; nothing to keep here.
          options.log(`mcp: could not send ${what}: ${(error as Error).message}`);
          return;
        }
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await server.close();
      } finally {
        session.close();
        for (const d of session.diagnostics()) options.log(`session ${session.id}: ${d.severity}: ${d.message}`);
      }
    },
  };
  return connection;
}

/**
 * The tool as clients see it. The description carries the live catalog (budgeted like the
 * session's prompt catalog), so after `tools/list_changed` a client sees new skills. When the
 * scope's tool policy withholds the tool, it is not offered at all.
 */
function toolsOf(runtime: McpSessionFactory, session: Session, options: McpServerOptions, withholdSkill: boolean): Tool[] {
  const tools: Tool[] = [];
  if (!withholdSkill && runtime.registry(scopeOf(options.session)).toolAvailable) {
    const catalog = session.currentCatalogText();
    const base = session.tool.description;
    tools.push({
      name: session.tool.name,
      description: catalog === "" ? base : sharedText(descriptionTexts, catalog, () => `${base}\n\n${catalog}`),
      inputSchema: { ...session.tool.inputSchema },
      annotations: TOOL_ANNOTATIONS,
    });
  }
  // Offered beside `skill` only where a writable source is open to this scope and policy allows it.
  const manage = session.manageTool;
  if (manage !== null) {
    tools.push({
      name: manage.name,
      description: manage.description,
      inputSchema: structuredClone(manage.inputSchema) as unknown as Tool["inputSchema"],
      annotations: MANAGE_TOOL_ANNOTATIONS,
    });
  }
  return tools;
}

const MANAGE_TOOL_ANNOTATIONS = { title: "Write skills", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const;

/**
 * Texts built from a catalog, one per catalog text, shared by every connection that shows it.
 * The catalog itself is shared (`sharedCatalog`), but a string joined to it per connection was a
 * copy per connection once written out: kilobytes held by every idle session. The last few
 * catalogs are enough (one per scope and budget a server serves).
 */
const descriptionTexts = new Map<string, string>();
const SHARED_TEXTS = 8;

function sharedText(texts: Map<string, string>, catalog: string, build: () => string): string {
  let text = texts.get(catalog);
  if (text === undefined) {
    text = build();
    texts.set(catalog, text);
    if (texts.size > SHARED_TEXTS) texts.delete(texts.keys().next().value!);
  }
  return text;
}

/**
 * The skills a person or client on this connection may use: every skill the scope allows, model-
 * hidden ones included, whose requirements hold here; none when the scope's tool policy turns
 * skills off. The extension and the prompts both serve exactly these.
 */
function usableSkills(runtime: McpSessionFactory, scope: Scope): RegisteredSkill[] {
  const registry = runtime.registry(scope);
  if (!registry.toolAvailable) return [];
  // A skill the audit blocks is neither published nor a prompt (SPEC §12).
  return registry.all().filter((skill) => registry.availability(skill.name)?.status === "available" && registry.blocked?.(skill.name) === undefined);
}

function scopeOf(options: SessionOptions): Scope {
  const scope: Scope = {};
  if (options.projectId !== undefined) scope.projectId = options.projectId;
  if (options.agentId !== undefined) scope.agentId = options.agentId;
  return scope;
}
