// The loader hook of module-trace.mjs: runs on the loader's own thread, so it writes each URL
// straight to the trace file.
import * as fs from "node:fs";

let file = "";

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  fs.appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
