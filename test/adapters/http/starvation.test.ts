/**
 * What keeps the HTTP server from being starved, over real sockets: a cap on the connections it
 * holds (half-sent requests included), with room kept for the probes, on both ways of keeping
 * sessions; and event streams, which keep a session from idling only up to a bound of their own,
 * so sessions holding nothing but a stream cannot fill the session cap for ever.
 */
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { describe, test } from "node:test";
import { PROBE_CONNECTIONS } from "../../../src/adapters/http/connection-cap.js";
import { serveMcpHttp } from "../../../src/adapters/http/live-sessions.js";
import { serveMcpHttpReplicated } from "../../../src/adapters/http/stored-sessions.js";
import { eventually } from "../../support/eventually.js";
import { freshDatabase } from "../../support/postgres.js";
import { skillTree } from "../mcp-fixtures.js";
import { initialize, INITIALIZE, rawRequest, runtimesForBothServers } from "./support.js";

const tree = skillTree();
const db = await freshDatabase();
const serverOptions = { session: { log: false as const }, version: "test", log: () => {} };
const runtimes = runtimesForBothServers(tree, db.url);

interface Served {
  url: string;
  close(): Promise<void>;
}

const servers: Array<{ name: string; skip: string | false; serve(maxConnections: number): Promise<Served> }> = [
  { name: "sessions in this process", skip: false, serve: (maxConnections) => serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, maxConnections, maxSessions: 1000 }) },
  { name: "sessions in PostgreSQL", skip: db.skip ?? false, serve: (maxConnections) => serveMcpHttpReplicated(runtimes.stored(), serverOptions, { port: 0, maxConnections }) },
];

/** A connection that sends part of a request and then nothing: its headers only half, or its headers and the start of a body. */
function halfSent(url: URL, part: "headers" | "body"): { socket: net.Socket; closed: () => boolean } {
  const socket = net.connect(Number(url.port), url.hostname);
  let closed = false;
  socket.on("error", () => {});
  socket.on("close", () => (closed = true));
  socket.on("data", () => {});
  const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\n`;
  const body = `content-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${INITIALIZE.length}\r\n\r\n${INITIALIZE.slice(0, 10)}`;
  socket.write(part === "headers" ? head : head + body);
  return { socket, closed: () => closed };
}

/** An initialize over `agent`, whose connection stays open after the answer; resolves with the status. */
function keptAliveInitialize(url: URL, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(INITIALIZE);
  });
}

for (const { name, skip, serve } of servers) {
  describe(`the connection cap, ${name}`, { skip }, () => {
    test("at the cap a request is served; one connection past it gets 503 for MCP while the probes still answer", { timeout: 60_000 }, async () => {
      const cap = 4;
      const served = await serve(cap);
      const url = new URL(served.url);
      const held: Array<ReturnType<typeof halfSent>> = [];
      // One connection kept open after its answer: the one that makes the count `cap`.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        // Requests in flight (bodies half sent), which no newcomer may push out.
        for (let i = 0; i < cap - 1; i++) {
          const one = halfSent(url, "body");
          await new Promise((resolve) => one.socket.once("connect", resolve));
          held.push(one);
        }
        const atCap = await keptAliveInitialize(url, agent);
        assert.equal(atCap, 200, "the connection that makes it `cap` is served");
        const past = await initialize(url);
        assert.equal(past.status, 503, past.body);
        assert.match(past.body, new RegExp(`holds ${cap} connections`));
        assert.equal(past.headers.connection, "close");
        for (const probe of ["/healthz", "/readyz"]) assert.equal((await rawRequest(new URL(probe, url), { method: "GET" })).status, 200, probe);
        assert.equal(held.filter((one) => one.closed()).length, 0, "requests in flight are not pushed out");
      } finally {
        agent.destroy();
        for (const one of held) one.socket.destroy();
        await served.close();
      }
    });

    test("300 half-sent requests: the server holds no more than the cap and its probe room, the probes answer throughout, and it serves again once they go", { timeout: 120_000 }, async () => {
      const cap = 32;
      const served = await serve(cap);
      const url = new URL(served.url);
      const held: Array<ReturnType<typeof halfSent>> = [];
      try {
        for (let i = 0; i < 300; i++) held.push(halfSent(url, i % 2 === 0 ? "headers" : "body"));
        // The server closes what it will not hold: all but cap + the probe room at most.
        await eventually(() => held.filter((one) => !one.closed()).length <= cap + PROBE_CONNECTIONS, "the server to close what it does not hold", 60_000);
        for (let round = 0; round < 5; round++) {
          for (const probe of ["/healthz", "/readyz"]) assert.equal((await rawRequest(new URL(probe, url), { method: "GET" })).status, 200, probe);
        }
        for (const one of held) one.socket.destroy();
        await eventually(() => held.every((one) => one.closed()), "the half-sent connections to close");
        const again = await initialize(url);
        assert.equal(again.status, 200, again.body);
      } finally {
        for (const one of held) one.socket.destroy();
        await served.close();
      }
    });
  });
}

/** An event stream held open for `sessionId`; `ended()` once the server closes it. */
function openStream(url: URL, sessionId: string): { ended: () => boolean; status: Promise<number>; close(): void } {
  let ended = false;
  const req = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: "GET",
    headers: { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on("response", (res) => {
      resolve(res.statusCode ?? 0);
      res.on("data", () => {});
      res.on("close", () => (ended = true));
    });
    req.on("error", (error) => {
      ended = true;
      reject(error);
    });
  });
  req.end();
  return { ended: () => ended, status, close: () => req.destroy() };
}

test("sessions holding only an event stream are ended after the stream idle bound, freeing the session cap", { timeout: 60_000 }, async () => {
  const served = await serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, maxSessions: 2, idleTimeoutMs: 200, streamIdleTimeoutMs: 400 });
  const url = new URL(served.url);
  const streams: Array<ReturnType<typeof openStream>> = [];
  try {
    for (let i = 0; i < 2; i++) {
      const { sessionId } = await initialize(url);
      assert.ok(sessionId);
      const stream = openStream(url, sessionId);
      assert.equal(await stream.status, 200);
      streams.push(stream);
    }
    assert.equal((await initialize(url)).status, 503, "the cap is full");
    await eventually(() => streams.every((stream) => stream.ended()), "the server to end the sessions holding only a stream");
    assert.equal(served.connections.size, 0);
    assert.equal((await initialize(url)).status, 200);
  } finally {
    for (const stream of streams) stream.close();
    await served.close();
  }
});

test("an event stream keeps its session past the idle timeout, up to its own bound, while a session without one ends", { timeout: 60_000 }, async () => {
  const served = await serveMcpHttp(runtimes.plain(), serverOptions, { port: 0, idleTimeoutMs: 100, streamIdleTimeoutMs: 60_000 });
  const url = new URL(served.url);
  try {
    const { sessionId } = await initialize(url);
    assert.ok(sessionId);
    const idle = await initialize(url);
    const stream = openStream(url, sessionId);
    assert.equal(await stream.status, 200);
    // The session without a stream goes after its idle timeout; the one with a stream stays.
    await eventually(() => !served.connections.has(idle.sessionId!), "the idle session to end");
    assert.equal(served.connections.has(sessionId), true);
    assert.equal(stream.ended(), false);
    stream.close();
  } finally {
    await served.close();
  }
});
