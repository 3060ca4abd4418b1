/**
 * Archives built byte by byte for tests, so a test can make what no well-behaved packer would:
 * entries named `../x` or `/etc/x`, links, devices, FIFOs, a bomb. tar headers come from the
 * `tar` package's own Header encoder; zip files are written here (stored or deflated entries,
 * a central directory, CRC-32 from zlib).
 */
import * as zlib from "node:zlib";
import { Header, type HeaderData } from "tar";

export interface TarMember {
  path: string;
  body?: Buffer | string;
  type?: HeaderData["type"];
  mode?: number;
  linkpath?: string;
  /** The size the header claims, when it must differ from the body's. */
  size?: number;
}

/** An uncompressed tar stream of `members`, ended by two zero blocks. */
export function tar(members: readonly TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const member of members) {
    const body = Buffer.from(member.body ?? "");
    const header = new Header({ path: member.path, mode: member.mode ?? 0o644, uid: 0, gid: 0, size: member.size ?? body.length, mtime: new Date(0), type: member.type ?? "File", ...(member.linkpath ? { linkpath: member.linkpath } : {}) });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tarGz(members: readonly TarMember[]): Buffer {
  return zlib.gzipSync(tar(members));
}

/**
 * A .tar.gz holding SKILL.md and `zeros.bin`, a file of `bytes` zeros: a few kilobytes that
 * inflate to `bytes`. Built as concatenated gzip members (one valid gzip stream to a reader), one
 * mebibyte at a time, so the test never holds the inflated archive in memory.
 */
export function tarGzBomb(bytes: number): Buffer {
  const skill = Buffer.from("---\nname: bomb\ndescription: A bomb.\n---\nBody\n");
  const header = (path: string, size: number): Buffer => {
    const block = Buffer.alloc(512);
    new Header({ path, mode: 0o644, uid: 0, gid: 0, size, mtime: new Date(0), type: "File" }).encode(block, 0);
    return block;
  };
  const members: Buffer[] = [zlib.gzipSync(Buffer.concat([header("SKILL.md", skill.length), skill, Buffer.alloc(512 - skill.length), header("zeros.bin", bytes)]))];
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= zeros.length) members.push(zlib.gzipSync(zeros.subarray(0, Math.min(left, zeros.length)), { level: 9 }));
  members.push(zlib.gzipSync(Buffer.alloc(1024 + ((512 - (bytes % 512)) % 512))));
  return Buffer.concat(members);
}

export interface ZipMember {
  path: string;
  body?: Buffer | string;
  /** Unix mode with its file type (0o100644 a file, 0o120777 a link, 0o040755 a folder). */
  mode?: number;
  deflate?: boolean;
  /** The uncompressed size the headers claim, when it must differ from the body's. */
  declaredSize?: number;
}

/** A zip archive of `members`, with Unix modes in the external attributes. */
export function zip(members: readonly ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const body = Buffer.from(member.body ?? "");
    const data = member.deflate ? zlib.deflateRawSync(body) : body;
    const name = Buffer.from(member.path, "utf8");
    const crc = zlib.crc32(body);
    const size = member.declaredSize ?? body.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(member.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(member.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((member.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
