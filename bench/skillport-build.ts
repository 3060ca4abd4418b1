/**
 * skillport as its users run it: the compiled package from `npm run build`, imported by plain
 * Node. Timing the TypeScript sources through the tsx loader instead adds the loader's own cost
 * (its helper wraps every function the loader sees, and a worker has to register the loader
 * before it can start), which users never pay. `npm run bench` builds first.
 */
import * as fs from "node:fs";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/src/", import.meta.url);
for (const file of ["index.js", "registry/registry.js"]) {
  if (!fs.existsSync(new URL(file, built))) {
    throw new Error(`${fileURLToPath(new URL(file, built))} is missing: run \`npm run build\` first (\`npm run bench\` does)`);
  }
}

export const lib = (await import(new URL("index.js", built).href)) as typeof import("../src/index.js");
export const registryModule = (await import(new URL("registry/registry.js", built).href)) as typeof import("../src/registry/registry.js");
