/**
 * Every code block of README.md and docs/*.md that shows something to run is run here, against
 * the bundled example skills in a temporary directory, and prints what the text says it prints.
 *
 * - ```ts blocks run as a module through tsx; `import … from "skillport"` is this checkout's
 *   source. The working directory holds `skills/` and `examples/skills/` (copies of the bundled
 *   examples) and an empty HOME.
 * - ```sh blocks run line by line through `sh` (comments and `\` continuations as a shell reads
 *   them); `skillport` is this checkout's CLI, and `npm start --silent --` runs it as a clone does.
 *   Each command must exit 0.
 * - A ```text block right after a runnable block (only blank lines between) is what it prints on
 *   stdout, exactly.
 * - `<!-- not run: REASON -->` on the line before a block (blank lines allowed) leaves it out,
 *   and the test says so with the reason: for what cannot run here (the public registry, a
 *   model, a database, a server that runs until stopped).
 * - Every ```ts block, run or not, is type-checked as its own module under this project's
 *   compiler options (`strict`, NodeNext), `skillport` being this checkout's source: an example
 *   a reader copies must compile as written.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { tempDir } from "../support/tmp.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(REPO, "node_modules", "tsx", "dist", "esm", "index.mjs");
const RUNNABLE = new Set(["ts", "sh"]);
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/;

interface Block {
  file: string;
  line: number;
  lang: string;
  code: string;
  /** The reason given by a `not run` marker; null when the block runs. */
  notRun: string | null;
  /** The ```text block after it: what it prints. */
  expected: string | null;
}

function blocksOf(file: string): Block[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const found: Array<Block & { end: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const marker = before >= 0 ? NOT_RUN.exec(lines[before]!.trim()) : null;
    found.push({ file, line: i + 1, lang: open[1]!, code: lines.slice(i + 1, end).join("\n"), notRun: marker ? marker[1]! : null, expected: null, end });
    i = end;
  }
  for (let k = 0; k + 1 < found.length; k++) {
    const block = found[k]!;
    const next = found[k + 1]!;
    const between = lines.slice(block.end + 1, next.line - 1);
    if (RUNNABLE.has(block.lang) && next.lang === "text" && between.every((line) => line.trim() === "")) block.expected = `${next.code}\n`;
  }
  return found.filter((block) => RUNNABLE.has(block.lang));
}

/** Every block of one language in a file, run or not. */
function blocksOfLang(file: string, lang: string): Block[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (open[1] === lang) found.push({ file, line: i + 1, lang, code: lines.slice(i + 1, end).join("\n"), notRun: null, expected: null });
    i = end;
  }
  return found;
}

const files = [path.join(REPO, "README.md"), ...fs.readdirSync(path.join(REPO, "docs")).filter((name) => name.endsWith(".md")).sort().map((name) => path.join(REPO, "docs", name))];
const blocks = files.flatMap(blocksOf);

/** A project directory as a reader of the docs has one: the examples, this checkout as `skillport`, an empty HOME. */
function workspace(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = fs.realpathSync(tempDir("skillport-docs-"));
  const examples = path.join(REPO, "examples", "skills");
  fs.cpSync(examples, path.join(cwd, "skills"), { recursive: true });
  fs.cpSync(examples, path.join(cwd, "examples", "skills"), { recursive: true });
  const pkg = path.join(cwd, "node_modules", "skillport");
  fs.mkdirSync(pkg, { recursive: true });
  fs.symlinkSync(path.join(REPO, "src"), path.join(pkg, "src"), "dir");
  fs.writeFileSync(
    path.join(pkg, "package.json"),
    JSON.stringify({ name: "skillport", type: "module", exports: { ".": "./src/index.ts", "./mcp": "./src/mcp.ts", "./ai-sdk": "./src/adapters/ai-sdk.ts" } }),
  );
  const bin = path.join(cwd, "node_modules", ".bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "skillport"), `#!/bin/sh\nexec "${process.execPath}" --import "${TSX}" "${path.join(REPO, "src", "cli", "main.ts")}" "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(cwd, "package.json"), JSON.stringify({ name: "docs-reader", private: true, type: "module", scripts: { start: "skillport" } }));
  const home = path.join(cwd, "home");
  fs.mkdirSync(home);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, ".state"), PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, NO_COLOR: "1" };
  delete env.SMOKE_BASE_URL;
  return { cwd, env };
}

function runBlock(block: Block): { stdout: string; problems: string[] } {
  const { cwd, env } = workspace();
  const problems: string[] = [];
  let stdout = "";
  if (block.lang === "ts") {
    const script = path.join(cwd, "example.ts");
    fs.writeFileSync(script, block.code);
    const run = spawnSync(process.execPath, ["--import", TSX, script], { cwd, env, encoding: "utf8", timeout: 120_000 });
    stdout = run.stdout;
    if (run.status !== 0) problems.push(`exited ${run.status ?? run.signal}:\n${run.stderr}`);
  } else {
    for (const command of shellCommands(block.code)) {
      const run = spawnSync("/bin/sh", ["-c", command], { cwd, env, encoding: "utf8", timeout: 120_000 });
      stdout += run.stdout;
      if (run.status !== 0) problems.push(`\`${command}\` exited ${run.status ?? run.signal}:\n${run.stderr}`);
    }
  }
  return { stdout, problems };
}

/** The commands of a sh block: continuation lines joined, blank and comment-only lines dropped. */
function shellCommands(code: string): string[] {
  const commands: string[] = [];
  let current = "";
  for (const line of code.split("\n")) {
    if (line.endsWith("\\")) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    if (current.trim() !== "" && !current.trim().startsWith("#")) commands.push(current);
    current = "";
  }
  return commands;
}

/**
 * Type-checks every ```ts block in one compiler run: each block its own module in a temporary
 * folder, `skillport` (and its subpaths) mapped to this checkout's source, other packages to this
 * checkout's node_modules (linked in). Returns the compiler's messages, with each file named by the block.
 */
function typeCheck(tsBlocks: readonly Block[]): string {
  const dir = fs.realpathSync(tempDir("skillport-docs-types-"));
  const names = new Map<string, string>();
  tsBlocks.forEach((block, index) => {
    const file = `block-${index}.ts`;
    names.set(file, `${path.relative(REPO, block.file)}:${block.line}`);
    fs.writeFileSync(path.join(dir, file), block.code);
  });
  // ES modules, as a reader's project with `"type": "module"` has them (top-level await).
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const base = JSON.parse(fs.readFileSync(path.join(REPO, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
  const { outDir: _outDir, rootDir: _rootDir, declaration: _declaration, ...compilerOptions } = base.compilerOptions;
  // The reader's dependencies are this checkout's (`ai` for the agent-loop example, Node's types).
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        noEmit: true,
        // An example may leave a value unused (`session.manageTool;` shows what it is).
        noUnusedLocals: false,
        paths: {
          skillport: [path.join(REPO, "src", "index.ts")],
          "skillport/mcp": [path.join(REPO, "src", "mcp.ts")],
          "skillport/ai-sdk": [path.join(REPO, "src", "adapters", "ai-sdk.ts")],
        },
      },
      include: ["*.ts"],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { cwd: dir, encoding: "utf8", timeout: 300_000 });
  const output = `${run.stdout}${run.stderr}`.replace(/block-\d+\.ts/g, (file) => names.get(file) ?? file);
  return run.status === 0 ? "" : output || `tsc exited ${run.status ?? run.signal}`;
}

test("every TypeScript block of the README and the docs type-checks under strict", { timeout: 600_000 }, () => {
  const tsBlocks = files.flatMap((file) => blocksOfLang(file, "ts"));
  assert.ok(tsBlocks.length >= 5, "the docs hold TypeScript examples");
  assert.equal(typeCheck(tsBlocks), "");
});

test("the docs have runnable blocks, and every block left out says why", () => {
  assert.ok(blocks.some((block) => block.notRun === null && block.lang === "ts"), "a TypeScript example runs");
  assert.ok(blocks.some((block) => block.notRun === null && block.lang === "sh"), "a shell example runs");
  for (const block of blocks) if (block.notRun !== null) assert.ok(block.notRun.length > 10, `${block.file}:${block.line}: say why it is not run`);
});

for (const block of blocks) {
  const where = `${path.relative(REPO, block.file)}:${block.line}`;
  const name = `${where} (${block.lang}) runs against the bundled examples${block.expected !== null ? " and prints what the text shows" : ""}`;
  if (block.notRun !== null) {
    test(name, { skip: `not run: ${block.notRun}` }, () => {});
    continue;
  }
  test(name, { timeout: 300_000 }, () => {
    const { stdout, problems } = runBlock(block);
    assert.deepEqual(problems, [], `${where}:\n${block.code}`);
    if (block.expected !== null) assert.equal(stdout, block.expected, `${where} prints what the text shows`);
  });
}
