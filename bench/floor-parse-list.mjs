// The parse floor for a whole `list --json` process: list each directory given, list each skill
// directory one level below it, read its SKILL.md as text, parse the frontmatter with js-yaml,
// print name and description as JSON. Single-threaded; js-yaml its one dependency.
import * as fs from "node:fs";
import jsYaml from "js-yaml";

const skills = [];
for (const root of process.argv.slice(2)) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = `${root}/${entry.name}`;
    try {
      fs.readdirSync(dir, { withFileTypes: true });
      const text = fs.readFileSync(`${dir}/SKILL.md`, "utf8");
      const end = text.indexOf("\n---", 3);
      const data = jsYaml.load(end < 0 ? "" : text.slice(4, end));
      skills.push({ name: data.name, description: data.description });
    } catch {
      // not a skill
    }
  }
}
process.stdout.write(`${JSON.stringify({ count: skills.length, skills }, null, 2)}\n`);
