// The floor for a whole `list --json` process: walk each directory given, read every SKILL.md
// one level below it, print the names as JSON. Plain Node, no dependencies.
import * as fs from "node:fs";
import * as path from "node:path";

const skills = [];
for (const root of process.argv.slice(2)) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    try {
      const text = fs.readFileSync(path.join(root, entry.name, "SKILL.md"), "utf8");
      skills.push({ name: entry.name, bytes: text.length });
    } catch {
      // not a skill
    }
  }
}
process.stdout.write(`${JSON.stringify({ count: skills.length, skills }, null, 2)}\n`);
