// Loaded into a benchmarked server with `--import` (and `--expose-gc`): on SIGUSR2 it collects
// garbage fully and writes one line with the heap figures to stderr, so a benchmark can read the
// memory of a server it did not write, without changing the server.
import * as fs from "node:fs";
import { isMainThread } from "node:worker_threads";

if (isMainThread) {
  process.on("SIGUSR2", () => {
    const gc = globalThis.gc;
    if (gc) {
      gc();
      gc();
    }
    const m = process.memoryUsage();
    fs.writeSync(2, `\n@@heap ${JSON.stringify({ heapUsed: m.heapUsed, external: m.external, rss: m.rss, gc: Boolean(gc) })}\n`);
  });
}
