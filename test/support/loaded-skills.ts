import type { RegisteredSkill } from "../../src/registry/types.js";
import { createSkillRuntime } from "../../src/runtime.js";

/** The skills the registry loads from `root`, by name (the runtime closed again). */
export async function loadedSkills(root: string): Promise<Map<string, RegisteredSkill>> {
  const runtime = await createSkillRuntime({ sources: [{ path: root, origin: "global" }], cwd: root, home: root, env: {} });
  try {
    return new Map(runtime.snapshot().skills.map((skill) => [skill.name, skill]));
  } finally {
    await runtime.close();
  }
}
