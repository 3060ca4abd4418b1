/**
 * The files of a fetched commit, written out from git's objects without a checkout (SPEC §10).
 * A checkout runs whatever `.gitattributes` names (filters, `ident`, end-of-line and encoding
 * conversions), and writes the whole tree before any limit is looked at: a 1.2 MiB repository
 * of compressed zeros checked out to 1 GiB. Here the tree is read with `git ls-tree`, only the
 * skills asked for are chosen, only their blobs are fetched, their sizes are read before a byte
 * of them is written, and each is written raw (`git cat-file --batch`: no filter of any kind).
 * Besides the skills, every link, the plugin manifests (`SOURCE_MANIFESTS`) and the SKILL.md of each
 * skill not asked for are written.
 *
 * Bounds, from the package limits (limits.ts): a file past `MAX_PACKAGE_BYTES`, and every file
 * of a skill once its files pass that sum, is written as a sparse file of its true size (no
 * disk used), so the package rules refuse that skill with their usual reason and nothing else
 * changes; everything written for one fetch together stays under `MAX_FETCHED_BYTES`, past which
 * the fetch fails and says to name fewer skills.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { MAX_PACKAGE_BYTES } from "../package/limits.js";
import { SKILL_FILE_NAMES } from "../package/package-shape.js";
import { InstallError } from "./install-error.js";

/** Everything one fetch may bring and write: sixteen whole packages. */
export const MAX_FETCHED_BYTES = 16 * MAX_PACKAGE_BYTES;

/** Entries one commit's tree may hold (files and folders): far past any real collection of skills. */
export const MAX_TREE_ENTRIES = 200_000;

/** The longest link target written as a link; a longer one could name nothing on any system. */
const MAX_LINK_TARGET_BYTES = 4096;

export interface TreeSelection {
  /** The folder inside the source the skills are looked for in, `/`-separated ("" for all of it). */
  inside: string;
  /** Only skill folders of these names (the names `--skill`, an update or the lockfile ask for); null for every skill. */
  names: readonly string[] | null;
}

export interface TreeEntry {
  mode: string;
  type: "blob" | "tree" | "commit";
  oid: string;
  /** The path as git stores it (bytes: a name need not be UTF-8). */
  raw: Buffer;
  segments: string[];
}

/** The entries of `git ls-tree -r -t -z` output; refuses a path no checkout could have written. */
export function parseTree(output: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf(0, start);
    if (end === -1) end = output.length;
    const record = output.subarray(start, end);
    start = end + 1;
    const tab = record.indexOf(9);
    const head = record.subarray(0, tab).toString("latin1").split(" ");
    const raw = record.subarray(tab + 1);
    if (tab === -1 || head.length !== 3) throw new InstallError("git listed the commit's tree in a form skillport does not know", "failed");
    const [mode, type, oid] = head as [string, string, string];
    if (type !== "blob" && type !== "tree" && type !== "commit") continue;
    const segments = raw.toString("utf8").split("/");
    // A tree object may carry names git itself refuses to check out; none may climb out.
    if (raw.includes(0) || segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
      throw new InstallError(`the source's tree holds a path no checkout writes (${JSON.stringify(raw.toString("utf8"))})`, "failed");
    }
    entries.push({ mode, type, oid, raw, segments });
    if (entries.length > MAX_TREE_ENTRIES) throw new InstallError(`the source's tree holds more than ${MAX_TREE_ENTRIES} files and folders`, "failed");
  }
  return entries;
}

export interface TreePlan {
  /** Folders to create (every folder of the tree). */
  folders: TreeEntry[];
  /** Files and links to write: those of the chosen skills, and every link. */
  blobs: TreeEntry[];
  /** For each blob's path (latin1 key), the chosen skill folder it belongs to, for the per-skill bound. */
  owner: Map<string, string>;
}

const key = (raw: Buffer): string => raw.toString("latin1");

/**
 * Files outside any skill that an install still reads: the plugin marketplaces and manifests
 * (`--plugin`, plugins.ts). Each is a few KiB of JSON, counted against the fetch's bound.
 */
const SOURCE_MANIFESTS = [".claude-plugin/marketplace.json", ".agents/plugins/marketplace.json", ".claude-plugin/plugin.json", ".codex-plugin/plugin.json"];

function isSourceManifest(segments: readonly string[]): boolean {
  const joined = segments.join("/");
  return SOURCE_MANIFESTS.some((end) => joined === end || joined.endsWith(`/${end}`));
}

/**
 * What to write for `selection`: the skill folders (a folder holding SKILL.md) under
 * `inside` whose name is asked for, with everything in them. `rootName` is the name the
 * source's own folder gets where it is written (a source that is itself a skill).
 */
export function planTree(entries: readonly TreeEntry[], selection: TreeSelection, rootName: string): TreePlan {
  const inside = selection.inside.split("/").filter((segment) => segment !== "");
  const wanted = selection.names === null ? null : new Set(selection.names);
  const under = (segments: readonly string[], prefix: readonly string[]): boolean => prefix.length <= segments.length && prefix.every((segment, i) => segments[i] === segment);
  const skillFolders: string[][] = [];
  // Skills not asked for: only their SKILL.md is fetched (a few KiB each, counted against the same
  // bounds), so a refusal can say what the source holds by folder and by declared name (`it
  // holds: alpha, beta`; an upstream rename: `a skill named pdf is now in documents-pdf`).
  const listedOnly: TreeEntry[] = [];
  for (const entry of entries) {
    if (entry.type !== "blob" || !SKILL_FILE_NAMES.includes(entry.segments[entry.segments.length - 1]!)) continue;
    const folder = entry.segments.slice(0, -1);
    if (!under(folder, inside)) continue;
    const name = folder.length === 0 ? rootName : folder[folder.length - 1]!;
    if (wanted === null || wanted.has(name)) skillFolders.push(folder);
    else listedOnly.push(entry);
  }
  // Deepest first, so a file is counted against the nearest skill it lies in.
  skillFolders.sort((a, b) => b.length - a.length);
  const folders: TreeEntry[] = [];
  const blobs: TreeEntry[] = [];
  const owner = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type === "tree") {
      folders.push(entry);
      continue;
    }
    if (entry.type !== "blob") continue;
    const skill = skillFolders.find((folder) => under(entry.segments.slice(0, -1), folder));
    // A link is a few bytes and may be how discovery reaches a skill; every one is written.
    if (skill === undefined && entry.mode !== "120000" && !isSourceManifest(entry.segments)) continue;
    blobs.push(entry);
    owner.set(key(entry.raw), skill === undefined ? "" : skill.join("/"));
  }
  for (const entry of listedOnly) {
    if (owner.has(key(entry.raw))) continue;
    blobs.push(entry);
    owner.set(key(entry.raw), entry.segments.slice(0, -1).join("/"));
  }
  // SKILL.md before the rest of its skill: the per-skill bound never turns it into a placeholder first.
  const rank = (entry: TreeEntry): number => (SKILL_FILE_NAMES.includes(entry.segments[entry.segments.length - 1]!) ? 0 : 1);
  blobs.sort((a, b) => rank(a) - rank(b) || Buffer.compare(a.raw, b.raw));
  return { folders, blobs, owner };
}

/** `<dir>/<raw path>` as bytes, so a name that is not UTF-8 is written as git stores it. */
function placeOf(dir: string, raw: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${dir}${path.sep}`), raw]);
}

/**
 * Which blobs are written for real and which as placeholders, from their sizes
 * (`git cat-file --batch-check`): the bounds in this module's header.
 */
export function boundBlobs(plan: TreePlan, sizes: ReadonlyMap<string, number>): { real: Set<string>; total: number } {
  const real = new Set<string>();
  const perSkill = new Map<string, number>();
  let total = 0;
  for (const blob of plan.blobs) {
    const size = sizes.get(blob.oid);
    if (size === undefined) throw new InstallError(`git could not give the object ${blob.oid} of the commit`, "failed");
    const skill = plan.owner.get(key(blob.raw)) ?? "";
    const skillBytes = (perSkill.get(skill) ?? 0) + size;
    perSkill.set(skill, skillBytes);
    if (blob.mode !== "120000" && (size > MAX_PACKAGE_BYTES || skillBytes > MAX_PACKAGE_BYTES)) continue;
    if (blob.mode === "120000" && size > MAX_LINK_TARGET_BYTES) continue;
    total += size;
    if (total > MAX_FETCHED_BYTES) {
      throw new InstallError(`the skills asked for hold more than ${MAX_FETCHED_BYTES} bytes; name fewer with --skill`, "failed");
    }
    real.add(key(blob.raw));
  }
  return { real, total };
}

/**
 * Writes the plan into `dir`: folders, then each blob from `git cat-file --batch` output fed in
 * through the returned sink (in the order of `oids`), placeholders for the rest.
 */
export class TreeWriter {
  private readonly queue: TreeEntry[][];
  private header: Buffer = Buffer.alloc(0);
  private remaining = -1;
  private current: { entries: TreeEntry[]; fd: number | null; link: Buffer[] | null } | null = null;
  private skipNewline = false;

  /** The oids to ask `git cat-file --batch` for, once each, in order. */
  readonly oids: string[];

  constructor(
    private readonly dir: string,
    plan: TreePlan,
    real: ReadonlySet<string>,
    private readonly sizes: ReadonlyMap<string, number>,
  ) {
    for (const folder of plan.folders) fs.mkdirSync(placeOf(dir, folder.raw), { recursive: true, mode: 0o755 });
    const byOid = new Map<string, TreeEntry[]>();
    for (const blob of plan.blobs) {
      if (!real.has(key(blob.raw))) {
        this.placeholder(blob);
        continue;
      }
      const group = byOid.get(blob.oid);
      if (group) group.push(blob);
      else byOid.set(blob.oid, [blob]);
    }
    this.oids = [...byOid.keys()];
    this.queue = this.oids.map((oid) => byOid.get(oid)!);
  }

  /** A file of its true size holding nothing on disk, or a link to nothing: what the package rules then refuse. */
  private placeholder(blob: TreeEntry): void {
    const place = placeOf(this.dir, blob.raw);
    if (blob.mode === "120000") {
      fs.symlinkSync(".skillport-link-target-too-long", place);
      return;
    }
    const fd = fs.openSync(place, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
    try {
      fs.ftruncateSync(fd, this.sizeOf(blob));
    } finally {
      fs.closeSync(fd);
    }
  }

  private sizeOf(blob: TreeEntry): number {
    return this.sizes.get(blob.oid) ?? 0;
  }

  /** Feeds a chunk of `git cat-file --batch` output. */
  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.skipNewline) {
        this.skipNewline = false;
        at += 1;
        continue;
      }
      if (this.remaining < 0) {
        const newline = chunk.indexOf(10, at);
        if (newline === -1) {
          this.header = Buffer.concat([this.header, chunk.subarray(at)]);
          return;
        }
        this.begin(Buffer.concat([this.header, chunk.subarray(at, newline)]).toString("latin1"));
        this.header = Buffer.alloc(0);
        at = newline + 1;
        if (this.remaining === 0) this.end();
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - at);
      this.body(chunk.subarray(at, at + take));
      this.remaining -= take;
      at += take;
      if (this.remaining === 0) this.end();
    }
  }

  private begin(header: string): void {
    const [oid, type, size] = header.split(" ");
    const entries = this.queue.shift();
    if (entries === undefined || oid !== entries[0]!.oid || type !== "blob" || size === undefined) {
      throw new InstallError(`git could not give the object ${entries?.[0]?.oid ?? oid} of the commit (${header})`, "failed");
    }
    this.remaining = Number(size);
    const first = entries[0]!;
    if (first.mode === "120000") {
      this.current = { entries, fd: null, link: [] };
    } else {
      const fd = fs.openSync(placeOf(this.dir, first.raw), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, modeOf(first));
      this.current = { entries, fd, link: null };
    }
  }

  private body(bytes: Buffer): void {
    const current = this.current!;
    if (current.link) current.link.push(Buffer.from(bytes));
    else {
      let written = 0;
      while (written < bytes.length) written += fs.writeSync(current.fd!, bytes, written, bytes.length - written);
    }
  }

  private end(): void {
    const current = this.current!;
    this.current = null;
    this.remaining = -1;
    this.skipNewline = true;
    const [first, ...others] = current.entries as [TreeEntry, ...TreeEntry[]];
    if (current.link) {
      const target = Buffer.concat(current.link);
      for (const entry of current.entries) fs.symlinkSync(target, placeOf(this.dir, entry.raw));
      return;
    }
    fs.closeSync(current.fd!);
    for (const entry of others) {
      fs.copyFileSync(placeOf(this.dir, first.raw), placeOf(this.dir, entry.raw), fs.constants.COPYFILE_EXCL);
      fs.chmodSync(placeOf(this.dir, entry.raw), modeOf(entry));
    }
  }

  /** Whether every object asked for was written whole. */
  finished(): boolean {
    return this.queue.length === 0 && this.current === null;
  }
}

function modeOf(entry: TreeEntry): number {
  return entry.mode === "100755" ? 0o755 : 0o644;
}
