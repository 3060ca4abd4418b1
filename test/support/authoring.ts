// A runtime over one writable project folder and a session on it, for the skill_manage tests
// that drive the library directly; both are closed when the test ends.
import * as fs from "node:fs";
import * as path from "node:path";
import { createSkillRuntime } from "../../src/runtime.js";
import type { Session } from "../../src/session/session.js";
import { realTempDir } from "./tmp.js";

export async function authoringSession(t: { after(fn: () => unknown): void }, prefix: string): Promise<{ authoring: string; session: Session }> {
  const authoring = path.join(realTempDir(prefix), "authored");
  fs.mkdirSync(authoring);
  const runtime = await createSkillRuntime({ sources: [{ path: authoring, origin: "project", writable: true }], env: {} });
  t.after(() => runtime.close());
  const session = runtime.session({});
  t.after(() => session.close());
  return { authoring, session };
}
