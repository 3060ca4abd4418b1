/**
 * The catalog is sent once over MCP (SPEC §7): in the `skill` tool's description, where the seeds
 * put it and where `tools/list_changed` refreshes it. The server's `instructions` only point
 * there. Measured on a copy of a real public collection (anthropics/skills).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serverCommand } from "../support/mcp-server.js";
import { CORPUS } from "../support/tmp.js";

/** A pointer is a sentence or two; the catalog of this collection is thousands of characters. */
const POINTER_LIMIT = 300;

test("the catalog rides in the tool description alone; instructions are a short pointer to it", async (t) => {
  const names = fs.readdirSync(CORPUS).filter((name) => fs.existsSync(path.join(CORPUS, name, "SKILL.md")));
  assert.ok(names.length >= 10, "the collection holds its skills");
  const client = new Client({ name: "catalog-once-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...serverCommand(["--root", CORPUS, "--no-log"]), stderr: "pipe" }));
  try {
    const instructions = client.getInstructions() ?? "";
    const description = (await client.listTools()).tools[0]!.description ?? "";
    t.diagnostic(`instructions: ${instructions.length} characters; tool description: ${description.length} characters; ${names.length} skills`);
    assert.ok(instructions.length > 0 && instructions.length <= POINTER_LIMIT, `instructions are ${instructions.length} characters`);
    assert.match(instructions, /`skill` tool's description/);
    for (const name of names) {
      assert.ok(description.includes(`<name>${name}</name>`), `${name} is in the tool description`);
      assert.ok(!instructions.includes(name), `${name} is not repeated in the instructions`);
    }
    assert.ok(description.length > 10 * instructions.length);
  } finally {
    await client.close();
  }
});
