/**
 * `skill://` URIs of the MCP Skills Extension: `skill://<skill-name>/<file path>`, the skill's
 * name as the authority (the spec's one-segment skill path), each path segment percent-encoded
 * as the official SDK encodes it, so that a URI we publish is already in WHATWG canonical form
 * and compares equal to what a client derives from it.
 */
export const SKILL_SCHEME = "skill://";

const ENCODED_IN_SEGMENT = /[^\w!$&'()*+,.:;=@[\]|~-]/gu;

function encodeSegment(segment: string): string {
  return segment.replace(ENCODED_IN_SEGMENT, (char) => encodeURIComponent(char));
}

/** The URI of a skill's directory (`relPath` empty) or of a file or folder in it; no trailing slash. */
export function skillUri(skillName: string, relPath = ""): string {
  const root = SKILL_SCHEME + encodeURIComponent(skillName);
  return relPath === "" ? root : `${root}/${relPath.split("/").map(encodeSegment).join("/")}`;
}

/** True when `uri` is exactly how URL parsing would print it: a name that cannot round-trip is not served. */
export function isCanonical(uri: string): boolean {
  try {
    return new URL(uri).href === uri;
  } catch {
    return false;
  }
}

/**
 * A path of plain segments: letters, digits, `_`, `~`, `-` and dots that do not start a segment.
 * URL parsing leaves such a path exactly as written (it escapes none of those characters, and
 * only a segment of dots is resolved away), so the URI of such a file is canonical exactly when
 * the skill's own part is.
 */
const PLAIN_PATH = /^[\w~-][\w.~-]*(?:\/[\w~-][\w.~-]*)*$/;

/**
 * `isCanonical(skillUri(skillName, relPath))`, without parsing a URL for each of a package's
 * plain file names: `list` asks it of every file of thousands of packages.
 */
export function isCanonicalFileUri(skillName: string, relPath: string): boolean {
  if (!PLAIN_PATH.test(relPath)) return isCanonical(skillUri(skillName, relPath));
  // A name of letters, digits and `-` (every valid skill name in ASCII) is written as it is;
  // any other is asked of the skill's own part, which decides alone.
  return PLAIN_NAME.test(skillName) || isCanonical(skillUri(skillName, "x"));
}

/** A skill name URL parsing leaves as written in a URI's authority (no escape, nothing refused). */
const PLAIN_NAME = /^[A-Za-z0-9-]+$/;

export type ParsedSkillUri = { skillName: string; relPath: string };

/**
 * The skill name and the skill-relative path a request names, or null when it is not a
 * `skill://` URI at all. Percent-escapes are decoded once per segment; a segment that decodes to
 * `.`, `..`, empty, or holds `/`, `\` or NUL names nothing here, nor does a URI with a query or
 * a fragment (the caller answers "unknown").
 */
export function parseSkillUri(uri: string): ParsedSkillUri | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  // A query or fragment names nothing here, an empty one too: `SKILL.md?` parses to an empty
  // `search`, so the printed URI is what tells (a `?` or `#` in a path or host is always escaped).
  if (url.protocol !== "skill:" || /[?#]/.test(url.href) || url.username !== "" || url.password !== "" || url.port !== "") return null;
  const skillName = decode(url.host);
  if (skillName === null || skillName === "") return null;
  const raw = url.pathname.startsWith("/") ? url.pathname.slice(1) : url.pathname;
  if (raw === "") return { skillName, relPath: "" };
  const segments: string[] = [];
  for (const part of raw.split("/")) {
    const segment = decode(part);
    if (segment === null || segment === "" || segment === "." || segment === ".." || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return { skillName, relPath: segments.join("/") };
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
