/**
 * A well-known site on loopback for install tests: a real HTTP server on 127.0.0.1 (an
 * ephemeral port) serving a folder's files, or answers a test sets per path. It records the
 * paths asked for, and closes when the test file's process exits (or when `close` is called).
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

export interface SiteServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Request paths in arrival order. */
  requests: string[];
  /** Serves this answer at `urlPath` instead of a file (a status, a body, headers). */
  answer(urlPath: string, answer: { status?: number; body?: Buffer | string; headers?: Record<string, string> }): void;
  close(): Promise<void>;
}

/** Serves `root`'s files (when given) on loopback. */
export async function serveSite(root: string | null): Promise<SiteServer> {
  const answers = new Map<string, { status?: number; body?: Buffer | string; headers?: Record<string, string> }>();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const urlPath = decodeURIComponent(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
    requests.push(urlPath);
    const set = answers.get(urlPath);
    if (set) {
      response.writeHead(set.status ?? 200, set.headers ?? {});
      response.end(set.body ?? "");
      return;
    }
    const file = root ? path.join(root, ...urlPath.split("/").filter((part) => part !== "" && part !== "..")) : null;
    if (file && fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      response.writeHead(200, { "content-type": file.endsWith(".json") ? "application/json" : "application/octet-stream" });
      response.end(fs.readFileSync(file));
      return;
    }
    response.writeHead(404);
    response.end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (urlPath, answer) => void answers.set(urlPath, answer),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
