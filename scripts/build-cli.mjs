// Bundles the `skillport` command (dist/cli/) from the compiled modules (dist/src/), after `tsc`.
//
// Why: a fresh process is what a user waits for on every `skillport list` and every MCP server an
// agent starts, and Node 20 resolves, reads and links each ES module on its own: about 130 of
// ours, and the MCP SDK, zod and ajv behind `mcp`, took 150-250 ms of each start. The bundle is
// a handful of files; each command's code stays in its own chunk, loaded when that command runs.
// The library (dist/src/) is not bundled: a host imports what it uses, and shares its own copy of
// the MCP SDK and zod with ours.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const compiled = path.join(repo, "dist", "src");
const out = path.join(repo, "dist", "cli");

// The parse cache keys its records by the code that parses; the bundle is not laid out as the
// modules are, so it carries their hash, worked out here by the cache's own rule.
const { parseCodeHash } = await import(pathToFileURL(path.join(compiled, "registry", "parse-cache.js")).href);
const codeHash = parseCodeHash(path.join(compiled, "registry"), ".js");

// The shared bundle holds every command (`all/`); the commands run fresh most often have one of
// their own each (`OWN_BUNDLE_COMMANDS`), so that what they load is not split over dozens of
// chunks by what the other commands share. The entry (`skillport.js`) picks one per run.
const { OWN_BUNDLE_COMMANDS } = await import(pathToFileURL(path.join(compiled, "cli", "command-name.js")).href);
const bundles = [["all", path.join(compiled, "cli", "main.js")], ...OWN_BUNDLE_COMMANDS.map((name) => [name, path.join(compiled, "cli", "entries", `${name}.js`)])];

fs.rmSync(out, { recursive: true, force: true });
const outputs = {};
const inputs = {};
for (const [name, entry] of bundles) {
  if (!fs.existsSync(entry)) throw new Error(`${name} is in OWN_BUNDLE_COMMANDS but has no entry (src/cli/entries/${name}.ts)`);
  const result = await esbuild.build({
    // The parse worker is an entry of its own, beside the chunk that starts it (parse-pool.ts
    // finds it as `./parse-worker.js` next to itself).
    entryPoints: { skillport: entry, "parse-worker": path.join(compiled, "registry", "parse-worker.js") },
    outdir: path.join(out, name),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    // CommonJS packages bundled into an ES module call `require` for Node's own modules.
    banner: { js: 'import { createRequire as __skillportCreateRequire } from "node:module"; const require = __skillportCreateRequire(import.meta.url);' },
    define: { SKILLPORT_PARSE_CODE_HASH: JSON.stringify(codeHash) },
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  Object.assign(outputs, result.metafile.outputs);
  Object.assign(inputs, result.metafile.inputs);
}
// The entry: small, and bundled alone, so that choosing costs one short file.
const launcher = await esbuild.build({
  entryPoints: { skillport: path.join(compiled, "cli", "launch.js") },
  outdir: out,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  metafile: true,
  logLevel: "warning",
});
Object.assign(outputs, launcher.metafile.outputs);

// A dynamic `import()` of a CommonJS package comes out of the bundler as a chunk whose only
// export is `default`, so the named functions the source uses are undefined at run time (it
// broke `list` on skills whose metadata is not text, and `--metrics`). Such packages are loaded
// with `createRequire` instead; this refuses a build that brings the mistake back, in any of
// the bundles.
const defaultOnly = Object.entries(outputs).filter(
  ([, output]) => output.exports.length === 1 && output.exports[0] === "default" && Object.keys(output.inputs).some((input) => input.includes("node_modules")),
);
if (defaultOnly.length > 0) {
  const names = defaultOnly.map(([file]) => path.relative(out, file)).join(", ");
  throw new Error(`a CommonJS package is imported with import() (${names}): load it with createRequire(import.meta.url) instead`);
}

// What the bundle copies from other packages, and each one's licence, shipped beside it.
const packages = new Map();
for (const input of Object.keys(inputs)) {
  const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.split(path.sep).join("/"));
  if (!match) continue;
  const dir = path.join(repo, input.slice(0, match.index + match[0].length));
  if (!packages.has(dir)) packages.set(dir, match[1]);
}
const notices = ["# Third-party code in the bundled command", "", "`dist/cli/` bundles code from these packages; each one's licence follows.", ""];
for (const dir of [...packages.keys()].sort()) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const licenceFile = fs.readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
  notices.push(`## ${pkg.name} ${pkg.version} (${typeof pkg.license === "string" ? pkg.license : "see below"})`, "");
  notices.push(licenceFile ? fs.readFileSync(path.join(dir, licenceFile), "utf8").trim() : `No licence file in the package; its package.json says ${JSON.stringify(pkg.license ?? null)}.`, "");
  // An Apache-2.0 package's NOTICE travels with its code.
  const noticeFile = fs.readdirSync(dir).find((name) => /^notice(\.|$)/i.test(name));
  if (noticeFile) notices.push(fs.readFileSync(path.join(dir, noticeFile), "utf8").trim(), "");
}
fs.writeFileSync(path.join(out, "THIRD-PARTY-NOTICES.md"), notices.join("\n"));
fs.chmodSync(path.join(out, "skillport.js"), 0o755);

const bytes = Object.values(outputs).reduce((sum, o) => sum + o.bytes, 0);
console.error(`bundled dist/cli: ${Object.keys(outputs).length} files, ${(bytes / 1024).toFixed(0)} KiB, ${packages.size} packages (parse code ${codeHash.slice(0, 12)})`);
