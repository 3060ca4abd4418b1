/**
 * skill_manage across real processes (SPEC §11): two processes editing the same skill at once
 * (one wins whole, the other gets `stale_skill`), and a writer SIGKILLed mid-write (no half skill:
 * every SKILL.md on disk is one whole version, a skill folder is there whole or not at all, and
 * the next writer is not locked out by the dead one).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { createSkillRuntime } from "../../src/runtime.js";
import { TSX_LOADER } from "../cli/cli-process.js";
import { realTempDir } from "../support/tmp.js";
import { notesVersion } from "./fixtures/notes-version.js";
import { withinBound } from "./support.js";

const WRITER = path.join(import.meta.dirname, "fixtures", "manage-writer.ts");

function startWriter(source: string, mode: "churn" | "race"): { child: ChildProcess; lines: AsyncIterator<string>; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, WRITER, source, mode], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const queue: string[] = [];
  const waiting: Array<(line: IteratorResult<string>) => void> = [];
  let pending = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) (waiting.shift() ?? ((l) => queue.push(l.value)))({ value: line, done: false });
  });
  child.once("exit", () => {
    for (const wake of waiting.splice(0)) wake({ value: `exited: ${stderr}`, done: true });
  });
  const lines: AsyncIterator<string> = {
    next: () => (queue.length > 0 ? Promise.resolve({ value: queue.shift()!, done: false }) : new Promise((resolve) => waiting.push(resolve))),
  };
  return { child, lines, exited };
}

async function nextLine(lines: AsyncIterator<string>, what: string): Promise<string> {
  const line = await withinBound(lines.next(), what);
  assert.equal(line.done, false, String(line.value));
  return line.value;
}

function seedNotes(source: string): void {
  fs.mkdirSync(path.join(source, "notes"), { recursive: true });
  fs.writeFileSync(path.join(source, "notes", "SKILL.md"), notesVersion(0, 10));
}

test("two processes editing the same skill at once: one wins whole, the other gets stale_skill", { timeout: 120_000 }, async (t) => {
  const source = realTempDir("skillport-manage-race");
  seedNotes(source);
  const writers = [startWriter(source, "race"), startWriter(source, "race")];
  t.after(() => writers.forEach(({ child }) => child.kill("SIGKILL")));
  for (const [i, { lines }] of writers.entries()) assert.equal(await nextLine(lines, `writer ${i} ready`), "ready");
  // Both have read version 0; both are told to write at once.
  for (const { child } of writers) child.stdin!.write("go\n");
  const outcomes = await Promise.all(writers.map(({ lines }, i) => nextLine(lines, `writer ${i} outcome`)));
  const codes = outcomes.map((line) => line.split(" ")[0]).sort();
  assert.deepEqual(codes, ["ok", "stale_skill"], outcomes.join("; "));
  const winner = Number(outcomes.find((line) => line.startsWith("ok "))!.split(" ")[1]);
  assert.equal(fs.readFileSync(path.join(source, "notes", "SKILL.md"), "utf8"), notesVersion(winner));
  await Promise.all(writers.map(({ exited }) => withinBound(exited, "writer exit")));
});

test("a writer killed mid-write leaves no half skill, and the next writer is not locked out", { timeout: 120_000 }, async (t) => {
  const source = realTempDir("skillport-manage-kill");
  seedNotes(source);
  const writer = startWriter(source, "churn");
  t.after(() => writer.child.kill("SIGKILL"));
  // Meanwhile a reader in this process keeps reading SKILL.md: every read must be one whole version.
  let reading = true;
  const seen = { reads: 0, partial: [] as string[] };
  const reader = (async () => {
    while (reading) {
      const text = fs.readFileSync(path.join(source, "notes", "SKILL.md"), "utf8");
      const n = Number(/description: Version (\d+) of the notes\./.exec(text)?.[1]);
      seen.reads += 1;
      if (!(n === 0 ? text === notesVersion(0, 10) : text === notesVersion(n))) seen.partial.push(text.slice(0, 80));
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  // Several rounds finished, so the kill lands in the middle of the stream of writes.
  for (let round = 1; round <= 5; round++) assert.match(await nextLine(writer.lines, `round ${round}`), new RegExp(`^${round} ok ok ok$`));
  writer.child.kill("SIGKILL");
  await withinBound(writer.exited, "writer exit");
  reading = false;
  await reader;
  assert.ok(seen.reads > 0, "the reader read while the writer wrote");
  assert.deepEqual(seen.partial, [], `no reader saw part of a SKILL.md (${seen.reads} reads)`);

  const skillMd = fs.readFileSync(path.join(source, "notes", "SKILL.md"), "utf8");
  const version = Number(/description: Version (\d+) of the notes\./.exec(skillMd)?.[1]);
  assert.equal(skillMd, notesVersion(version), "SKILL.md is one whole version");
  const visible = fs.readdirSync(source).filter((entry) => !entry.startsWith("."));
  assert.ok(visible.every((entry) => entry === "notes" || entry === "churn"), visible.join(", "));
  if (visible.includes("churn")) assert.match(fs.readFileSync(path.join(source, "churn", "SKILL.md"), "utf8"), /^---\nname: churn\n[\s\S]*churn body\n$/);

  // A fresh process sees whole skills only, and writes in spite of whatever lock the dead one left.
  const runtime = await createSkillRuntime({ sources: [{ path: source, origin: "project", writable: true }], env: {} });
  t.after(() => runtime.close());
  assert.deepEqual(runtime.diagnostics().filter((d) => d.severity === "error"), []);
  const session = runtime.session();
  t.after(() => session.close());
  await session.call({ name: "notes", file_path: "SKILL.md" });
  const edited = await session.manage({ action: "edit", name: "notes", content: notesVersion(999, 1) });
  assert.equal(edited.ok, true, JSON.stringify(edited.error));
  if (visible.includes("churn")) assert.equal((await session.manage({ action: "delete", name: "churn" })).ok, true);
  else assert.equal((await session.manage({ action: "create", name: "churn", content: "---\nname: churn\ndescription: After the kill.\n---\n" })).ok, true);
  // And what the dead writer left hidden of those skills is gone: the next writes swept it.
  const deadPid = String(writer.child.pid);
  const leftovers = [...fs.readdirSync(source), ...fs.readdirSync(path.join(source, "notes")).map((entry) => `notes/${entry}`)].filter((entry) => entry.includes(`.${deadPid}-`));
  assert.deepEqual(leftovers, []);
});
