/**
 * One run of `add` from a local folder into a shared target, for the install-lock race test:
 * started as a child process, it waits for the start signal (a file appearing), installs, and
 * prints what happened as one JSON line. Each copied file waits a moment, so runs overlap.
 */
import * as fs from "node:fs";
import { folderTarget, installSkills, InstallError } from "../../src/index.js";

const [source, dir, lockfile, go] = process.argv.slice(2) as [string, string, string, string];
while (!fs.existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 5));
try {
  const report = await installSkills(source, {
    target: folderTarget(dir, lockfile),
    onCopy: () => new Promise((resolve) => setTimeout(resolve, 20)),
  });
  process.stdout.write(`${JSON.stringify({ outcome: report.skills.map((s) => s.status).join(",") })}\n`);
} catch (error) {
  if (!(error instanceof InstallError)) throw error;
  process.stdout.write(`${JSON.stringify({ outcome: /is changing these skills/.test(error.message) ? "busy" : error.message })}\n`);
}
