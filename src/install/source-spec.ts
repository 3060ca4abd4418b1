/**
 * What a SOURCE names (SPEC §10): a git URL (`https://`, `ssh://`, `git@host:path`, `file://`),
 * the GitHub shorthand `owner/repo[/path][#ref]`, or a local folder. Any git source may end in
 * `#ref` (a branch, a tag or a commit). Parsed here, once, before anything runs: a SOURCE shaped
 * like an option (`--upload-pack=…`) or a host or ref that starts with `-` would be read by git
 * as an option, so it is refused with nothing run.
 *
 * A local folder is told from the shorthand by its spelling, not by what happens to exist: it
 * starts with `/`, `./`, `../` or `~/` (or is `.`, `..` or `~`), so `owner/repo` always means
 * GitHub, whatever folders the working directory holds.
 */
import * as path from "node:path";
import { gitlabTreeUrl, isSiteCandidate } from "./browsed-url.js";
import { InstallError } from "./install-error.js";
import { siteBaseUrl } from "./well-known.js";

export type SourceSpec =
  | {
      kind: "git";
      /** The SOURCE as the user gave it. */
      given: string;
      /** What git fetches from. */
      url: string;
      /** The branch, tag or commit asked for; null for the source's default branch. */
      ref: string | null;
      /** A folder inside the repository to look for skills in, `/`-separated; "" for the whole repository. */
      path: string;
    }
  | { kind: "local"; given: string; /** Absolute. */ dir: string }
  | {
      kind: "well-known";
      given: string;
      /** The site's base URL (well-known.ts `siteBaseUrl`). */
      url: string;
      /** An `https://` URL with no site index may still be a git repository: it is then fetched as one. */
      gitFallback: boolean;
    };

const GITHUB = "https://github.com";
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
/** Refs as git spells them, narrowed: no option shape, no refspec syntax (`:`, `+`, `^`, `~`), no `..`. */
const REF = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._\/-]{1,255}(?<![./])$/;
const SCP_LIKE = /^([^@/:\s]+)@([^@/:\s]+):(.+)$/;

export function parseSource(given: string, cwd: string, home: string): SourceSpec {
  if (/[\0-\x1f\x7f]/.test(given)) throw new InstallError(`SOURCE ${JSON.stringify(given)} holds a control character`, "usage");
  const text = given.trim();
  if (text === "") throw new InstallError("SOURCE is empty", "usage");
  if (text.startsWith("-")) throw new InstallError(`SOURCE ${JSON.stringify(given)} looks like an option; nothing was run`, "usage");

  if (text === "." || text === ".." || text === "~" || /^(\.{1,2}|~)\//.test(text) || text.startsWith("/")) {
    const expanded = text === "~" ? home : text.startsWith("~/") ? path.join(home, text.slice(2)) : text;
    return { kind: "local", given, dir: path.resolve(cwd, expanded) };
  }

  const [location, ref] = splitRef(text, given);
  const scp = SCP_LIKE.exec(location);
  if (/^(https|ssh|file):\/\//i.test(location)) {
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new InstallError(`SOURCE ${JSON.stringify(given)} is not a valid URL`, "usage");
    }
    if (url.protocol !== "file:" && (url.hostname === "" || url.hostname.startsWith("-"))) {
      throw new InstallError(`SOURCE ${JSON.stringify(given)} names no usable host`, "usage");
    }
    if (url.username.startsWith("-")) throw new InstallError(`SOURCE ${JSON.stringify(given)} names a user that looks like an option`, "usage");
    const browsed = githubTreeUrl(url, given) ?? gitlabTreeUrl(url, given);
    if (browsed) return browsed;
    if (ref === null && url.protocol === "https:" && isSiteCandidate(url)) return { kind: "well-known", given, url: siteBaseUrl(location), gitFallback: true };
    return { kind: "git", given, url: location, ref, path: "" };
  }
  // Plain http is never a git transport here; it names a well-known site (on loopback only).
  if (/^http:\/\//i.test(location) && ref === null) return { kind: "well-known", given, url: siteBaseUrl(location), gitFallback: false };
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(location)) {
    throw new InstallError(`SOURCE ${JSON.stringify(given)}: only https://, ssh://, file://, git@host:path, owner/repo, a well-known site (https://, or http:// on loopback) and local folders are accepted`, "usage");
  }
  if (scp) {
    const [, user, host, repoPath] = scp;
    if (user!.startsWith("-") || host!.startsWith("-") || repoPath!.startsWith("-")) {
      throw new InstallError(`SOURCE ${JSON.stringify(given)} holds a part that looks like an option`, "usage");
    }
    if (!/^[A-Za-z0-9.-]+$/.test(host!)) throw new InstallError(`SOURCE ${JSON.stringify(given)} names no usable host`, "usage");
    return { kind: "git", given, url: location, ref, path: "" };
  }
  const segments = location.split("/");
  const [owner, repo, ...rest] = segments;
  if (segments.length >= 2 && OWNER.test(owner!) && REPO.test(repo!) && repo !== "." && repo !== "..") {
    if (rest.some((segment) => segment === "" || segment === "." || segment === "..")) {
      throw new InstallError(`SOURCE ${JSON.stringify(given)}: the path inside the repository may not hold empty, . or .. segments`, "usage");
    }
    const name = repo!.endsWith(".git") ? repo!.slice(0, -4) : repo!;
    return { kind: "git", given, url: `${GITHUB}/${owner}/${name}.git`, ref, path: rest.join("/") };
  }
  throw new InstallError(
    `SOURCE ${JSON.stringify(given)} is not a git URL, owner/repo, or a local folder (write a local folder as ./${text} or an absolute path)`,
    "usage",
  );
}

/**
 * A GitHub page of a folder, as people copy it from the browser:
 * `https://github.com/owner/repo/tree/REF/path/inside` is the repository at REF, that folder.
 * REF is taken as the one segment after `tree/` (a branch with a `/` in its name needs
 * `owner/repo/path#branch/name` instead).
 */
function githubTreeUrl(url: URL, given: string): SourceSpec | null {
  if (url.protocol !== "https:" || url.hostname !== "github.com") return null;
  const match = /^\/([^/]+)\/([^/]+)\/(?:tree|blob)\/([^/]+)(?:\/(.*?))?\/?$/.exec(url.pathname);
  if (!match) return null;
  const [, owner, repo, ref, inside = ""] = match.map((part) => (part === undefined ? part : decodeURIComponent(part)));
  if (!OWNER.test(owner!) || !REPO.test(repo!)) return null;
  if (!REF.test(ref!)) throw new InstallError(`SOURCE ${JSON.stringify(given)}: ${JSON.stringify(ref)} is not a branch, tag or commit name`, "usage");
  const segments = inside === "" ? [] : inside.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw new InstallError(`SOURCE ${JSON.stringify(given)}: the path inside the repository may not hold empty, . or .. segments`, "usage");
  }
  const name = repo!.endsWith(".git") ? repo!.slice(0, -4) : repo!;
  return { kind: "git", given, url: `${GITHUB}/${owner}/${name}.git`, ref: ref!, path: segments.join("/") };
}

function splitRef(text: string, given: string): [string, string | null] {
  const hash = text.lastIndexOf("#");
  if (hash === -1) return [text, null];
  const ref = text.slice(hash + 1);
  if (!REF.test(ref)) throw new InstallError(`SOURCE ${JSON.stringify(given)}: ${JSON.stringify(ref)} is not a branch, tag or commit name`, "usage");
  return [text.slice(0, hash), ref];
}

/** Checks a ref given apart from a SOURCE (one read back from a lockfile). */
export function isSafeRef(ref: string): boolean {
  return REF.test(ref);
}

/**
 * Whether `url` is a git URL a SOURCE may name, exactly as `parseSource` keeps it (https, ssh,
 * file, `git@host:path`; no ref, no option shape). Asked of a URL read back from a lockfile,
 * which someone else may have committed: it reaches git as the URL to fetch.
 */
export function isGitSourceUrl(url: string): boolean {
  try {
    const spec = parseSource(url, "/", "/");
    // An https URL that is not GitHub's or GitLab's and has no `.git` is tried as a site first,
    // and as a git repository when it has no index: as a lockfile's git url it is the latter.
    return (spec.kind === "git" && spec.url === url && spec.ref === null) || (spec.kind === "well-known" && spec.gitFallback && spec.url === url);
  } catch {
    return false;
  }
}
