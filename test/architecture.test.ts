// The layers of docs/ARCHITECTURE.md, enforced: each folder under src/ imports only from the
// layers it is allowed to depend on, so dependencies keep pointing one way.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

const SRC = path.resolve(import.meta.dirname, "../src");

const ALLOWED: Record<string, string[]> = {
  package: [],
  audit: ["package"],
  registry: ["audit", "package"],
  install: ["registry", "audit", "package"],
  access: ["registry", "audit", "package"],
  prompt: ["access", "registry", "audit", "package"],
  tool: ["access", "registry", "audit", "package"],
  session: ["prompt", "tool", "access", "registry", "audit", "package"],
  adapters: ["session", "prompt", "tool", "access", "registry", "audit", "package"],
  cli: ["adapters", "session", "prompt", "tool", "access", "install", "registry", "audit", "package", "runtime.ts", "runtime-core.ts", "config.ts"],
};

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

test("every layer imports only from the layers beneath it", () => {
  const violations: string[] = [];
  for (const layer of Object.keys(ALLOWED)) {
    for (const file of filesUnder(path.join(SRC, layer))) {
      const text = fs.readFileSync(file, "utf8");
      for (const m of text.matchAll(/from "(\.{1,2}\/[^"]+)"/g)) {
        const target = path.relative(SRC, path.resolve(path.dirname(file), m[1]!));
        const top = target.split(path.sep)[0]!.replace(/\.js$/, ".ts");
        if (top === layer) continue;
        if (!ALLOWED[layer]!.includes(top)) violations.push(`${path.relative(SRC, file)} imports ${target}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test("only the AI SDK adapter loads the optional `ai` package (type-only imports load nothing)", () => {
  const loadsAi = /^import (?!type )[^;]*from "ai(\/[^"]*)?"|import\("ai(\/[^"]*)?"\)/m;
  const importers = filesUnder(SRC).filter((f) => loadsAi.test(fs.readFileSync(f, "utf8")));
  assert.deepEqual(importers.map((f) => path.relative(SRC, f)), [path.join("adapters", "ai-sdk.ts")]);
});
