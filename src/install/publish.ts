/**
 * `skillport publish DIR… --out SITE` (SPEC §10.1): writes a well-known site other clients
 * install from, the `skills` CLI among them: `SITE/.well-known/agent-skills/index.json`
 * (discovery schema 0.2.0) and one artifact per skill, `NAME/SKILL.md` (`skill-md`) for a skill
 * that is its SKILL.md alone, `NAME.tar.gz` (`archive`, the skill's folder as the archive's root)
 * otherwise, each with the SHA-256 digest of its bytes.
 *
 * Only skills that pass `validate` (the reference validator's verdict), the package rules and
 * the audit (SPEC §12: a skill that blocks is refused, naming its findings; warnings are said and
 * publish) are published: a site is what other people's agents load, so it holds nothing a
 * strict reader, or a careful installer, would refuse. The bytes are deterministic: entries sorted by name, archive members
 * sorted by path with mtime 0, uid/gid 0, no user or group names, mode 0644 (0755 when
 * executable), gzip with no name and time; the same input gives the same site, so a published
 * site diffs cleanly and a digest changes only when a skill did.
 *
 * The `.well-known/agent-skills` folder is built whole beside its place and swapped in: a
 * server reading it sees the old site or the new, and what a previous publish left that this
 * one did not write is gone. Nothing else under SITE is touched.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { auditPackage, verdictOf } from "../audit/index.js";
import { findingText } from "../audit/finding-text.js";
import { loadSkillSync } from "../package/load.js";
import { fileDigest } from "../package/package-digest.js";
import { readPackageFiles, type PackageFile } from "../package/package-files.js";
import { validateSkillSync } from "../package/validate.js";
import { InstallError } from "./install-error.js";
import { skillsOfSource } from "./source-skills.js";
import { DISCOVERY_SCHEMA, INDEX_FILE, WELL_KNOWN_PATHS } from "./well-known.js";

export interface PublishedSkill {
  name: string;
  status: "published" | "refused";
  /** Its folder, as found. */
  dir: string;
  type?: "skill-md" | "archive";
  /** The artifact's URL relative to the index. */
  url?: string;
  digest?: string;
  messages: string[];
}

export interface PublishReport {
  /** The index written. */
  index: string;
  skills: PublishedSkill[];
}

/** Names an index may carry (the RFC's rule: they become URL segments and folder names). */
const SITE_SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

export async function publishSite(dirs: readonly string[], out: string): Promise<PublishReport> {
  if (dirs.length === 0) throw new InstallError("publish needs at least one DIR", "usage");
  const candidates: Array<{ name: string; dir: string }> = [];
  for (const dir of dirs) {
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new InstallError(`${dir} is not a folder`, "usage");
    for (const skill of await skillsOfSource(dir, "")) candidates.push({ name: skill.name, dir: skill.dir });
  }
  const outcomes: PublishedSkill[] = [];
  const artifacts: Array<{ relative: string; bytes: Buffer }> = [];
  const entries: Array<{ name: string; type: "skill-md" | "archive"; description: string; url: string; digest: string }> = [];
  const taken = new Map<string, string>();
  for (const { name, dir } of candidates.sort((a, b) => compare(a.name, b.name) || compare(a.dir, b.dir))) {
    const problems: string[] = [];
    const earlier = taken.get(name);
    if (earlier) problems.push(`another skill named ${name} is published (from ${earlier})`);
    const invalid = validateSkillSync(dir);
    problems.push(...invalid);
    // validate accepts any Unicode letter; a site's names become URL segments, ASCII only (the RFC's rule).
    if (invalid.length === 0 && !SITE_SKILL_NAME.test(name)) problems.push(`its name ${JSON.stringify(name)} cannot be a site's skill name (1-64 of a-z, 0-9 and single hyphens)`);
    const pkg = readPackageFiles(dir);
    problems.push(...pkg.problems);
    const description = loadSkillSync(dir).skill?.description ?? null;
    if (description === null) problems.push("its description cannot be read");
    // Judged like an install: an installer with no audit of its own is one of the readers.
    const findings = problems.length === 0 ? await auditPackage(dir) : [];
    if (verdictOf(findings) === "block") problems.push("blocked by the audit; a site is installed by other people's agents", ...findings.map(findingText));
    if (problems.length > 0) {
      outcomes.push({ name, status: "refused", dir, messages: problems });
      continue;
    }
    taken.set(name, dir);
    const files = pkg.files.map((file) => ({ ...file, path: file.path === "skill.md" ? "SKILL.md" : file.path }));
    let artifact: { relative: string; type: "skill-md" | "archive"; bytes: Buffer };
    try {
      artifact =
        files.length === 1 && files[0]!.path === "SKILL.md"
          ? { relative: `${name}/SKILL.md`, type: "skill-md", bytes: fs.readFileSync(files[0]!.source) }
          : { relative: `${name}.tar.gz`, type: "archive", bytes: await tarGz(files) };
    } catch (error) {
      outcomes.push({ name, status: "refused", dir, messages: [(error as Error).message] });
      continue;
    }
    const digest = fileDigest(artifact.bytes);
    artifacts.push({ relative: artifact.relative, bytes: artifact.bytes });
    entries.push({ name, type: artifact.type, description: description!, url: artifact.relative, digest });
    outcomes.push({ name, status: "published", dir, type: artifact.type, url: artifact.relative, digest, messages: findings.map(findingText) });
  }
  const index = `${JSON.stringify({ $schema: DISCOVERY_SCHEMA, skills: entries }, null, 2)}\n`;
  const folder = path.join(path.resolve(out), ...WELL_KNOWN_PATHS[0].split("/"));
  writeSiteFolder(folder, [...artifacts, { relative: INDEX_FILE, bytes: Buffer.from(index, "utf8") }]);
  return { index: path.join(folder, INDEX_FILE), skills: outcomes };
}

/** The members of an archive, sorted by path, as ustar entries with fixed owners, times and modes, gzipped without a name or time. */
async function tarGz(files: readonly PackageFile[]): Promise<Buffer> {
  const { Header } = await import("tar");
  const blocks: Buffer[] = [];
  for (const file of [...files].sort((a, b) => compare(a.path, b.path))) {
    const bytes = fs.readFileSync(file.source);
    const header = new Header({ path: file.path, mode: file.executable ? 0o755 : 0o644, uid: 0, gid: 0, size: bytes.length, mtime: new Date(0), type: "File", uname: "", gname: "" });
    const block = Buffer.alloc(512);
    if (header.encode(block, 0)) throw new Error(`${file.path}: its path is too long for a portable archive (over 255 bytes, or a name over 100)`);
    blocks.push(block, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512));
  }
  // Two zero blocks end a tar archive.
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks), { level: 9 });
}

/** Writes `files` as the whole of `folder`: built in a sibling, then swapped in. */
function writeSiteFolder(folder: string, files: ReadonlyArray<{ relative: string; bytes: Buffer }>): void {
  const parent = path.dirname(folder);
  fs.mkdirSync(parent, { recursive: true });
  const suffix = `${process.pid}.${Math.random().toString(36).slice(2)}`;
  const staging = path.join(parent, `.${path.basename(folder)}.new.${suffix}`);
  const old = path.join(parent, `.${path.basename(folder)}.old.${suffix}`);
  fs.mkdirSync(staging);
  try {
    for (const { relative, bytes } of files) {
      const target = path.join(staging, ...relative.split("/"));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, bytes, { flag: "wx", mode: 0o644 });
    }
    const hadOld = fs.lstatSync(folder, { throwIfNoEntry: false }) !== undefined;
    if (hadOld) fs.renameSync(folder, old);
    try {
      fs.renameSync(staging, folder);
    } catch (error) {
      // The old site goes back: a failed publish leaves what was there.
      if (hadOld) fs.renameSync(old, folder);
      throw error;
    }
    if (hadOld) fs.rmSync(old, { recursive: true, force: true });
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
