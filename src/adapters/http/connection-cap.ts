/**
 * How many connections the HTTP server holds at once, and room kept for the probes. Every open
 * connection costs a file descriptor, so without a bound a client opening them faster than they
 * close (half-sent requests, a stream per session) takes the descriptors skill reads and logs
 * need; and a balancer whose `/healthz` cannot get in takes a busy server for a dead one.
 *
 * The `max` oldest connections open are served as usual. The next `PROBE_CONNECTIONS` are
 * admitted for the probes only: any other request on one is answered 503 and the connection
 * closed (decided when the request comes, so one that arrived while the server was full is
 * served once older ones have gone). Beyond
 * that, a newcomer takes the place of the oldest connection with no request in flight (idle
 * between keep-alive requests, or one whose request has not even finished its headers); when
 * every connection is busy, the newcomer is closed. A request whose headers or body arrive too
 * slowly is cut by Node's own timeouts (`headersTimeout`, `requestTimeout`, set by the front).
 */
import type http from "node:http";
import type { Socket } from "node:net";

/** Connections admitted beyond the cap for `/healthz` and `/readyz`. */
export const PROBE_CONNECTIONS = 8;

interface Held {
  /** Requests on it whose answers are not finished (an open event stream is one). */
  inFlight: number;
}

export interface ConnectionCap {
  /** Whether the connection was admitted for the probes only. */
  probesOnly(socket: Socket): boolean;
  /** Connections held now. */
  held(): number;
}

export function capConnections(server: http.Server, max: number): ConnectionCap {
  // Insertion order is arrival order: the first idle one found is the oldest.
  const sockets = new Map<Socket, Held>();
  server.on("connection", (socket: Socket) => {
    if (sockets.size >= max + PROBE_CONNECTIONS && !evictIdle(sockets)) {
      socket.destroy();
      return;
    }
    sockets.set(socket, { inFlight: 0 });
    socket.once("close", () => sockets.delete(socket));
  });
  // Before the front's own listener, so a request is counted before anything answers it.
  server.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const held = sockets.get(req.socket);
    if (!held) return;
    held.inFlight += 1;
    res.once("close", () => (held.inFlight -= 1));
  });
  return {
    probesOnly: (socket) => {
      if (sockets.size <= max) return false;
      // Over the cap (only then is the walk paid for): is it among the `max` oldest?
      let rank = 0;
      for (const held of sockets.keys()) {
        if (held === socket) return false;
        if (++rank >= max) return true;
      }
      return true;
    },
    held: () => sockets.size,
  };
}

/** Closes the oldest connection with no request in flight; false when every one is busy. */
function evictIdle(sockets: Map<Socket, Held>): boolean {
  for (const [socket, held] of sockets) {
    if (held.inFlight > 0) continue;
    sockets.delete(socket);
    socket.destroy();
    return true;
  }
  return false;
}
