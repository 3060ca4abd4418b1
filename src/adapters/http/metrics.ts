/**
 * `skillport mcp --http … --metrics`: what a replica has done, as `GET /metrics` in the
 * Prometheus text format, through `prom-client` (a well-kept client library, not hand-written
 * text). The library is loaded only when metrics are asked for: a server without `--metrics`
 * never reads it.
 *
 * Each metric counts one thing, in one place: HTTP requests by method and status, tool calls by
 * outcome (the envelope's status or error code, or why no envelope was produced), latency
 * histograms of both, every store statement by operation and outcome with its latency, append
 * conflicts, idempotent replays, errors by kind; and, read at scrape time, the store's
 * connections in use, the sessions and event streams this replica holds, the registry's skills
 * and diagnostics, and refreshes that changed what is served.
 */
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";
import type { StoreQueryEvent } from "../../session/store-postgres.js";

/** The store's view metrics take: every statement it runs, and how many are in flight. */
export interface ObservedStore {
  observe(listener: (event: StoreQueryEvent) => void): () => void;
  inFlight(): number;
}

/** What is read at scrape time rather than counted as it happens. */
export interface MetricsSources {
  store?: ObservedStore | null;
  /** Sessions this replica holds in memory between requests. */
  sessionsOpen(): number;
  /** Event streams (`GET /mcp`) this replica holds open. */
  streamsOpen(): number;
  /** Skills in the registry this replica serves. */
  registrySkills(): number;
  /** Diagnostics of the registry (invalid, shadowed, warnings). */
  diagnostics(): number;
}

export interface ServerMetrics {
  /** The `Content-Type` of `render()`'s text. */
  readonly contentType: string;
  render(): Promise<string>;
  /** One HTTP request answered (`method` is the HTTP method, or the JSON-RPC method for a POST). */
  request(method: string, status: number, seconds: number): void;
  /** One `tools/call` answered: `outcome` is the envelope's status or error code, `store_unavailable`, `cancelled`, or `error`. */
  toolCall(outcome: string, seconds: number): void;
  /** A request answered from its idempotency key's stored answer, not acted on again. */
  replay(): void;
  /** Something went wrong that a client was told about as an error (`store_unavailable`, `internal`, `registry_digest_mismatch`…). */
  error(kind: string): void;
  /** A refresh changed what the registry serves. */
  refresh(): void;
  /** Stops observing the store. */
  close(): void;
}

/** Latency buckets in seconds, from a cached read (~1 ms) to the store's default deadline and past it. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export async function createServerMetrics(sources: MetricsSources): Promise<ServerMetrics> {
  // Required, not imported: prom-client is CommonJS, and a dynamic `import()` of it bundled into
  // the command gave a module whose only export was `default` (every metric then failed to start).
  const client = createRequire(import.meta.url)("prom-client") as typeof PromClient;
  // A registry of its own: two servers in one process (tests, a library host) count apart, and
  // nothing of the host's default registry is exposed.
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: "skillport_process_" });
  const registers = [registry];

  const requests = new client.Counter({ name: "skillport_http_requests_total", help: "HTTP requests answered, by method and status.", labelNames: ["method", "status"], registers });
  const requestSeconds = new client.Histogram({ name: "skillport_http_request_duration_seconds", help: "Time to answer an HTTP request.", labelNames: ["method"], buckets: LATENCY_BUCKETS, registers });
  const toolCalls = new client.Counter({ name: "skillport_tool_calls_total", help: "Tool calls answered, by outcome (envelope status or error code).", labelNames: ["outcome"], registers });
  const toolCallSeconds = new client.Histogram({ name: "skillport_tool_call_duration_seconds", help: "Time to answer a tool call.", buckets: LATENCY_BUCKETS, registers });
  const storeQueries = new client.Counter({ name: "skillport_store_queries_total", help: "Statements sent to the session store, by operation and outcome.", labelNames: ["operation", "outcome"], registers });
  const storeSeconds = new client.Histogram({ name: "skillport_store_query_duration_seconds", help: "Time a store statement took (or until its deadline).", labelNames: ["operation"], buckets: LATENCY_BUCKETS, registers });
  const conflicts = new client.Counter({ name: "skillport_append_conflicts_total", help: "Appends another writer beat; the session re-read and decided again.", registers });
  const replays = new client.Counter({ name: "skillport_idempotent_replays_total", help: "Requests answered from the answer stored under their idempotency key.", registers });
  const errors = new client.Counter({ name: "skillport_errors_total", help: "Errors answered to clients, by kind.", labelNames: ["kind"], registers });
  const refreshes = new client.Counter({ name: "skillport_registry_refreshes_total", help: "Refreshes that changed the skills served.", registers });
  const store = sources.store ?? null;
  new client.Gauge({ name: "skillport_store_pool_in_use", help: "Store statements in flight (connections in use).", registers, collect() { this.set(store ? store.inFlight() : 0); } });
  new client.Gauge({ name: "skillport_sessions_open", help: "Sessions this replica holds in memory.", registers, collect() { this.set(sources.sessionsOpen()); } });
  new client.Gauge({ name: "skillport_event_streams_open", help: "Event streams (GET /mcp) this replica holds open.", registers, collect() { this.set(sources.streamsOpen()); } });
  new client.Gauge({ name: "skillport_registry_skills", help: "Skills in the registry this replica serves.", registers, collect() { this.set(sources.registrySkills()); } });
  new client.Gauge({ name: "skillport_registry_diagnostics", help: "Diagnostics of the registry (invalid, shadowed, warnings).", registers, collect() { this.set(sources.diagnostics()); } });

  const unobserve = store
    ? store.observe((event) => {
        storeQueries.inc({ operation: event.operation, outcome: event.outcome });
        storeSeconds.observe({ operation: event.operation }, event.seconds);
        if (event.outcome === "conflict") conflicts.inc();
      })
    : () => {};

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    request(method, status, seconds) {
      requests.inc({ method, status: String(status) });
      requestSeconds.observe({ method }, seconds);
    },
    toolCall(outcome, seconds) {
      toolCalls.inc({ outcome });
      toolCallSeconds.observe(seconds);
    },
    replay: () => replays.inc(),
    error: (kind) => errors.inc({ kind }),
    refresh: () => refreshes.inc(),
    close: () => {
      unobserve();
    },
  };
}
