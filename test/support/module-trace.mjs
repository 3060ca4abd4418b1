// Preloaded with `--import` into a child process: appends the URL of every module the process
// loads to the file named by MODULE_TRACE_FILE, ES modules as the loader resolves them and
// CommonJS ones (a package loaded with `createRequire`) from the require cache at exit.
import * as fs from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

const file = process.env.MODULE_TRACE_FILE;
if (file) {
  register("./module-trace-hook.mjs", import.meta.url, { data: { file } });
  const require = createRequire(import.meta.url);
  process.on("exit", () => {
    const paths = Object.keys(require.cache).map((p) => pathToFileURL(p).href);
    fs.appendFileSync(file, paths.map((url) => `${url}\n`).join(""));
  });
}
