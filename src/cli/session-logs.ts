import * as path from "node:path";
import { stateHome } from "../session/log-file.js";

/**
 * Where the CLI keeps session logs unless `--log-dir` says otherwise (SPEC §5.6): the user's state
 * directory, never the working tree, which may be a repository someone else wrote.
 */
export function defaultLogDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateHome(env), "skillport", "sessions");
}
