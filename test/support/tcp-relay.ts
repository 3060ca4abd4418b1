/**
 * A TCP relay in front of one server, to fail it the hard way: `hold()` stops passing the
 * server's bytes on (the requests still arrive, are acted on and answered, and the answers go
 * nowhere), `cut()` then closes every connection and stops accepting new ones. A request held
 * and cut is one its server finished but whose answer never left the machine, which is what a
 * replica killed between storing a call and sending the response leaves behind; killing a
 * process alone almost never lands in that gap.
 */
import * as net from "node:net";

export interface TcpRelay {
  port: number;
  /** From now on, the server's bytes are dropped instead of passed on. */
  hold(): void;
  /** Closes every connection (both sides) and the listener; new connections are refused. */
  cut(): Promise<void>;
  /** Bytes the server sent while held. */
  heldBytes(): number;
}

export async function startTcpRelay(targetPort: number): Promise<TcpRelay> {
  const sockets = new Set<net.Socket>();
  let holding = false;
  let held = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => {
      if (holding) held += chunk.length;
      else client.write(chunk);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    hold: () => {
      holding = true;
    },
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await closed;
    },
    heldBytes: () => held,
  };
}
