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
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
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
