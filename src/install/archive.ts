/**
 * Unpacking a well-known site's archive artifact (`.tar.gz` with `tar`, `.zip` with `yauzl`) by
 * the discovery RFC's rules (SPEC §10.1): the archive's root is the skill's folder; an entry that
 * names `..`, an absolute path, a drive, a backslash or a NUL is refused, and so is any link
 * (symbolic or hard) and any special file; only regular files and folders are written. Files and
 * bytes are counted WHILE unpacking, before each chunk is written, never after: an archive that
 * inflates to gigabytes stops at the package limit (limits.ts) with at most that much written,
 * and the decompressor is fed in small slices so it never runs far past the point of refusal.
 *
 * Both libraries are driven entry by entry; neither is asked to write anything itself, so no
 * option of theirs decides what lands on disk. Files are created with `wx` (never over an
 * existing file, never through a link) and get mode 0644, or 0755 when the archive marks them
 * executable; owners and times in the archive are ignored.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type * as Yauzl from "yauzl";
import { MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES } from "../package/limits.js";

export interface ArchiveLimits {
  maxFiles: number;
  maxBytes: number;
}

export const PACKAGE_ARCHIVE_LIMITS: ArchiveLimits = { maxFiles: MAX_PACKAGE_FILES, maxBytes: MAX_PACKAGE_BYTES };

/** Why an archive was refused; `inputUsed` says how far into the archive's bytes unpacking got. */
export class ArchiveRefused extends Error {
  constructor(
    message: string,
    readonly inputUsed: number,
  ) {
    super(message);
    this.name = "ArchiveRefused";
  }
}

export type ArchiveKind = "tar.gz" | "zip";

/** Which kind of archive these bytes are, from their magic numbers; null for neither. */
export function archiveKindOf(bytes: Uint8Array): ArchiveKind | null {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return "tar.gz";
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return "zip";
  return null;
}

/** The compressed bytes handed to the tar parser at a time: small, so inflating stops soon after a refusal. */
const TAR_FEED_BYTES = 16 * 1024;

/**
 * Unpacks `bytes` into `dest` (an empty folder that exists). Throws ArchiveRefused on the first
 * entry that breaks a rule or a limit; what was written by then stays in `dest` for the caller to
 * remove (it never leaves `dest`).
 */
export async function unpackArchive(bytes: Buffer, kind: ArchiveKind, dest: string, limits: ArchiveLimits = PACKAGE_ARCHIVE_LIMITS): Promise<{ files: number; bytes: number }> {
  const writer = new BoundedWriter(dest, limits);
  if (kind === "tar.gz") await unpackTarGz(bytes, writer);
  else await unpackZip(bytes, writer);
  if (!writer.wrote("SKILL.md") && !writer.wrote("skill.md")) throw new ArchiveRefused("the archive has no SKILL.md at its root", bytes.length);
  return { files: writer.files, bytes: writer.bytes };
}

/** A relative `/`-separated path inside the archive root, or why not. `.` segments are dropped. */
export function archiveEntryPath(raw: string): string | { refused: string } {
  const shown = JSON.stringify(raw);
  if (raw === "" || raw.includes("\0")) return { refused: `entry ${shown} has an empty name or a NUL` };
  if (raw.includes("\\")) return { refused: `entry ${shown} holds a backslash` };
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) return { refused: `entry ${shown} is an absolute path` };
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.some((part) => part === "..")) return { refused: `entry ${shown} leads outside the archive (..)` };
  if (parts.some((part) => /[\x00-\x1f\x7f]/.test(part))) return { refused: `entry ${shown} holds a control character` };
  return parts.join("/");
}

class BoundedWriter {
  files = 0;
  bytes = 0;
  private readonly written = new Set<string>();
  private fd: number | null = null;
  private current = "";

  constructor(
    private readonly dest: string,
    private readonly limits: ArchiveLimits,
  ) {}

  wrote(relative: string): boolean {
    return this.written.has(relative);
  }

  folder(relative: string): void {
    if (relative === "") return;
    fs.mkdirSync(path.join(this.dest, ...relative.split("/")), { recursive: true });
  }

  /** Starts a file; `declaredSize` (when the archive states one) is checked against the bytes left before anything is written. */
  open(relative: string, executable: boolean, declaredSize: number | null): void {
    if (this.written.has(relative)) throw new Error(`entry ${JSON.stringify(relative)} appears twice`);
    if (this.files + 1 > this.limits.maxFiles) throw new Error(`the archive holds more than ${this.limits.maxFiles} files`);
    if (declaredSize !== null && this.bytes + declaredSize > this.limits.maxBytes) throw new Error(`the archive unpacks to more than ${this.limits.maxBytes} bytes`);
    const file = path.join(this.dest, ...relative.split("/"));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, "wx", executable ? 0o755 : 0o644);
    this.current = relative;
    this.files += 1;
    this.written.add(relative);
  }

  write(chunk: Buffer): void {
    if (this.fd === null) throw new Error("archive data outside a file entry");
    if (this.bytes + chunk.length > this.limits.maxBytes) throw new Error(`the archive unpacks to more than ${this.limits.maxBytes} bytes (stopped in ${JSON.stringify(this.current)})`);
    fs.writeSync(this.fd, chunk);
    this.bytes += chunk.length;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** tar entry types written as files or folders; every other type (links, devices, FIFOs, sparse, …) is refused. */
const TAR_FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);

async function unpackTarGz(bytes: Buffer, writer: BoundedWriter): Promise<void> {
  const { Parser } = await import("tar");
  const parser = new Parser({ strict: true });
  let failure: Error | null = null;
  let fed = 0;
  const fail = (error: Error): void => {
    failure ??= error;
    writer.close();
    parser.abort(error);
  };
  const done = new Promise<void>((resolve) => {
    parser.on("end", () => resolve());
    parser.on("abort", (error: Error) => {
      failure ??= error;
      resolve();
    });
    parser.on("error", (error: Error) => {
      failure ??= error;
      resolve();
    });
  });
  parser.on("entry", (entry) => {
    if (failure) return entry.resume();
    const relative = archiveEntryPath(entry.path);
    if (typeof relative !== "string") return fail(new Error(relative.refused));
    try {
      if (entry.type === "Directory") {
        writer.folder(relative);
        return entry.resume();
      }
      if (!TAR_FILE_TYPES.has(entry.type)) {
        return fail(new Error(`entry ${JSON.stringify(entry.path)} is a ${describeTarType(entry.type)}, which a skill may not hold`));
      }
      if (relative === "") return fail(new Error(`entry ${JSON.stringify(entry.path)} names the archive root as a file`));
      writer.open(relative, ((entry.mode ?? 0) & 0o111) !== 0, entry.size);
    } catch (error) {
      return fail(error as Error);
    }
    entry.on("data", (chunk: Buffer) => {
      if (failure) return;
      try {
        writer.write(chunk);
      } catch (error) {
        fail(error as Error);
      }
    });
    entry.on("end", () => writer.close());
  });
  try {
    while (fed < bytes.length && !failure) {
      const slice = bytes.subarray(fed, fed + TAR_FEED_BYTES);
      fed += slice.length;
      parser.write(slice);
      // Let the parser's queued entries and their data run before the next slice goes in.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!failure) parser.end();
  } catch (error) {
    failure ??= error as Error;
  }
  if (!failure) await done;
  writer.close();
  if (failure) throw new ArchiveRefused(tarMessage(failure), fed);
}

function tarMessage(error: Error): string {
  const code = (error as { code?: string }).code;
  if (code === "TAR_BAD_ARCHIVE" || code === "Z_DATA_ERROR" || /zlib|incorrect header|unexpected end/i.test(error.message)) return `the archive is not a readable .tar.gz (${error.message})`;
  return error.message;
}

function describeTarType(type: string): string {
  if (type === "SymbolicLink") return "symbolic link";
  if (type === "Link") return "hard link";
  if (type === "CharacterDevice" || type === "BlockDevice") return "device";
  if (type === "FIFO") return "FIFO";
  return `${type} entry`;
}

/** Unix file types as zip's external attributes carry them (the high 16 bits). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

let yauzlModule: typeof Yauzl | null = null;

function yauzl(): typeof Yauzl {
  // yauzl is CommonJS, loaded only when a zip artifact arrives (see ARCHITECTURE: createRequire, never import()).
  return (yauzlModule ??= createRequire(import.meta.url)("yauzl") as typeof Yauzl);
}

async function unpackZip(bytes: Buffer, writer: BoundedWriter): Promise<void> {
  const zip = await new Promise<Yauzl.ZipFile>((resolve, reject) =>
    yauzl().fromBuffer(bytes, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true }, (error, file) =>
      error || !file ? reject(new ArchiveRefused(`the archive is not a readable .zip (${error?.message ?? "no archive"})`, 0)) : resolve(file),
    ),
  );
  let used = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const refuse = (message: string): void => {
        zip.close();
        reject(new ArchiveRefused(message, used));
      };
      zip.on("error", (error: Error) => refuse(`the archive is not a readable .zip (${error.message})`));
      zip.on("end", () => resolve());
      zip.on("entry", (entry: Yauzl.Entry) => {
        used = entry.relativeOffsetOfLocalHeader + entry.compressedSize;
        const relative = archiveEntryPath(entry.fileName);
        if (typeof relative !== "string") return refuse(relative.refused);
        const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
        const isFolder = entry.fileName.endsWith("/");
        if (type !== 0 && type !== (isFolder ? S_IFDIR : S_IFREG)) return refuse(`entry ${JSON.stringify(entry.fileName)} is a ${type === 0o120000 ? "symbolic link" : "special file"}, which a skill may not hold`);
        if (entry.isEncrypted()) return refuse(`entry ${JSON.stringify(entry.fileName)} is encrypted`);
        try {
          if (isFolder) {
            writer.folder(relative);
            return zip.readEntry();
          }
          writer.open(relative, ((entry.externalFileAttributes >>> 16) & 0o111) !== 0, entry.uncompressedSize);
        } catch (error) {
          writer.close();
          return refuse((error as Error).message);
        }
        zip.openReadStream(entry, (error, stream) => {
          if (error || !stream) {
            writer.close();
            return refuse(`entry ${JSON.stringify(entry.fileName)} cannot be read (${error?.message ?? "no stream"})`);
          }
          let failed = false;
          stream.on("data", (chunk: Buffer) => {
            if (failed) return;
            try {
              writer.write(chunk);
            } catch (problem) {
              failed = true;
              writer.close();
              stream.destroy();
              refuse((problem as Error).message);
            }
          });
          stream.on("error", (problem: Error) => {
            if (failed) return;
            failed = true;
            writer.close();
            refuse(`entry ${JSON.stringify(entry.fileName)} cannot be read (${problem.message})`);
          });
          stream.on("end", () => {
            if (failed) return;
            writer.close();
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } finally {
    writer.close();
  }
}
