/**
 * The bearer token of `skillport mcp --http` (SECURITY.md "Round four"): read from
 * `--auth-token-file FILE`, or, for a server that must have one (`--authoring`, or a `--host`
 * beyond loopback), the user's own token in their state directory, made on first need. That file
 * is created 0600 in a 0700 directory, with no symlink followed below the user's home or state
 * directory (the session log's rule, `openLogFileSync`), so only its user can read it: another
 * local account, which loopback does not keep out, cannot. It is kept between runs, so a client
 * configured with it keeps working after a restart.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { bearerTokenProblem } from "../adapters/http/bearer-token.js";
import { readRegularFileSync } from "../package/regular-file.js";
import { openLogFileSync, stateHome } from "../session/log-file.js";
import { CliError, EXIT_USAGE } from "./exit.js";

/** Where a server that needs a token and was given none keeps its user's. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateHome(env), "skillport", "mcp-http-token");
}

/** `--auth-token-file FILE`: its text without the final line break, checked as a token. */
export function readTokenFile(file: string): string {
  let text: string;
  try {
    text = readRegularFileSync(file);
  } catch (error) {
    throw new CliError(`--auth-token-file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, EXIT_USAGE);
  }
  const token = text.replace(/\r?\n$/, "");
  const problem = bearerTokenProblem(token);
  if (problem !== null) throw new CliError(`--auth-token-file ${file}: ${problem}`, EXIT_USAGE);
  return token;
}

/**
 * The user's token in `file`, made (32 random bytes, base64url) when there is none yet. A file
 * found there that others may read, or that another user owns, is refused rather than used: its
 * token may be known.
 */
export function userToken(file: string): string {
  const existing = readOwnToken(file);
  if (existing !== null) return existing;
  const token = randomBytes(32).toString("base64url");
  // Written whole under a name of its own, then linked into place: `link` never replaces, so two
  // servers starting at once agree on the first one's token instead of mixing both.
  const scratch = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openLogFileSync(scratch, "append");
  try {
    fs.writeSync(fd, `${token}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(scratch, file);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readOwnToken(file) ?? token;
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}

function readOwnToken(file: string): string | null {
  let fd: number;
  try {
    fd = openLogFileSync(file, "read");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CliError(`the bearer token file ${file} cannot be used: ${(error as Error).message}`, EXIT_USAGE);
  }
  try {
    const stat = fs.fstatSync(fd);
    if ((stat.mode & 0o077) !== 0 || (process.getuid !== undefined && stat.uid !== process.getuid())) {
      throw new CliError(`the bearer token file ${file} may be read by others (mode ${(stat.mode & 0o777).toString(8)}); remove it and a new one is made, or pass --auth-token-file`, EXIT_USAGE);
    }
    const token = fs.readFileSync(fd, "utf8").replace(/\r?\n$/, "");
    const problem = bearerTokenProblem(token);
    if (problem !== null) throw new CliError(`the bearer token file ${file}: ${problem}; remove it and a new one is made`, EXIT_USAGE);
    return token;
  } finally {
    fs.closeSync(fd);
  }
}
