/** A small skill tree covering what the read commands must show: resources, hidden, unavailable, broken, shadowed. */
import * as fs from "node:fs";
import * as path from "node:path";
import { writeBetaSkill, writeGatedSkill, writeSkillWithResources } from "../support/sample-skills.js";
import { writeSkill } from "../support/tmp.js";
import { sandbox } from "./cli-process.js";

export interface CliTree {
  cwd: string;
  env: Record<string, string>;
  /** Good skills plus one hidden, one unavailable and one broken. */
  root: string;
  /** A second root whose `alpha` loses to the first root's. */
  shadowRoot: string;
  /** Only valid, usable skills. */
  cleanRoot: string;
  alphaDir: string;
  brokenFile: string;
}

export function cliTree(): CliTree {
  const box = sandbox();
  const cwd = fs.realpathSync(box.cwd);
  const root = path.join(cwd, "skills");
  const alphaDir = writeSkillWithResources(
    root,
    "alpha",
    "name: alpha\ndescription: Alpha does the first thing.\nlicense: MIT\nallowed-tools: Bash Read\nmetadata:\n  author: someone",
    "# Alpha\n\nRun {baseDir}/scripts/run.sh.\n",
    "# Guide\n\nRead me.\n",
  );
  writeBetaSkill(root);
  writeSkill(root, "hidden", "name: hidden\ndescription: Only people see this one.\ndisable-model-invocation: true");
  writeGatedSkill(root, "Needs a variable.");
  const brokenDir = path.join(root, "broken");
  fs.mkdirSync(brokenDir);
  const brokenFile = path.join(brokenDir, "SKILL.md");
  fs.writeFileSync(brokenFile, "---\nname: broken\ndescription: [unclosed\n---\n\nBody.\n");

  const shadowRoot = path.join(cwd, "more-skills");
  writeSkill(shadowRoot, "alpha", "name: alpha\ndescription: A second alpha that loses.");
  const cleanRoot = path.join(cwd, "clean");
  writeSkill(cleanRoot, "only-one", "name: only-one\ndescription: The single clean skill.");

  const env: Record<string, string> = { ...box.env };
  return { cwd, env, root, shadowRoot, cleanRoot, alphaDir, brokenFile };
}
