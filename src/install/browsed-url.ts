/**
 * SOURCE URLs that are not a git remote as written (SPEC §10, §10.1): a GitLab page of a folder
 * (`https://gitlab.com/group/repo/-/tree/REF/path`, any GitLab host, since the `/-/` marks it),
 * and which `https://` URLs are tried as a well-known site before git. GitHub's own page URLs
 * are read in source-spec.ts beside the shorthand they share rules with.
 */
import { InstallError } from "./install-error.js";
import { isSafeRef, type SourceSpec } from "./source-spec.js";

/** Hosts that serve git repositories and never a skills index: their URLs go straight to git. */
const GIT_HOSTS: ReadonlySet<string> = new Set(["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"]);

/** Whether an `https://` SOURCE may be a well-known site (then tried as one first): not a known git host, not a `.git` path. */
export function isSiteCandidate(url: URL): boolean {
  return !GIT_HOSTS.has(url.hostname.toLowerCase()) && !/\.git\/?$/i.test(url.pathname);
}

/**
 * `https://HOST/group[/subgroup…]/repo/-/tree/REF[/path]` (or `/-/blob/`): the repository at
 * REF, that folder. REF is the one segment after `tree/`, as for GitHub's pages.
 */
export function gitlabTreeUrl(url: URL, given: string): SourceSpec | null {
  if (url.protocol !== "https:") return null;
  const match = /^\/(.+?)\/-\/(?:tree|blob)\/([^/]+)(?:\/(.*?))?\/?$/.exec(url.pathname);
  if (!match) return null;
  const [, project, ref, inside = ""] = match.map((part) => (part === undefined ? part : decodeURIComponent(part)));
  const projectParts = project!.split("/");
  if (projectParts.length < 2 || projectParts.some((part) => !/^[A-Za-z0-9._-]+$/.test(part) || part === "." || part === "..")) return null;
  if (!isSafeRef(ref!)) throw new InstallError(`SOURCE ${JSON.stringify(given)}: ${JSON.stringify(ref)} is not a branch, tag or commit name`, "usage");
  const segments = inside === "" ? [] : inside.split("/");
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw new InstallError(`SOURCE ${JSON.stringify(given)}: the path inside the repository may not hold empty, . or .. segments`, "usage");
  }
  const repo = project!.endsWith(".git") ? project! : `${project}.git`;
  return { kind: "git", given, url: `https://${url.host}/${repo}`, ref: ref!, path: segments.join("/") };
}
