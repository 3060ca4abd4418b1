/**
 * Cheap decoding of the blobs a command line carries (SPEC §12: decode what is cheap to decode
 * and judge what it decodes to): base64 (standard and URL-safe), hex digits and `\xNN` escapes.
 * Only decodings that read as text are kept; an image or a hash decodes to bytes and is dropped.
 */
import { Buffer } from "node:buffer";

export interface Decoded {
  /** Where the blob starts in the text it was found in. */
  readonly index: number;
  readonly encoding: "base64" | "hex";
  readonly text: string;
}

// Past these a blob is an embedded file (a font, an image), not a command, and decoding it costs.
const MAX_BLOB_CHARS = 16 * 1024;
const MAX_BLOBS = 64;

const BASE64 = /(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){5,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])/g;
const BASE64URL = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])/g;
const HEX_ESCAPES = /(?:\\x[0-9a-fA-F]{2}){8,}/g;

/** Every blob in `text` that decodes to readable text, at most MAX_BLOBS of them. */
export function decodedBlobs(text: string): Decoded[] {
  const out: Decoded[] = [];
  const seen = new Set<number>();
  const take = (index: number, encoding: Decoded["encoding"], bytes: Buffer): void => {
    if (seen.has(index)) return;
    const decoded = readable(bytes);
    if (decoded === null) return;
    seen.add(index);
    out.push({ index, encoding, text: decoded });
  };
  for (const m of text.matchAll(BASE64)) {
    if (out.length >= MAX_BLOBS) break;
    if (m[0].length > MAX_BLOB_CHARS || !/[0-9+/]|[A-Z].*[a-z]/.test(m[0])) continue;
    take(m.index, "base64", Buffer.from(m[0], "base64"));
  }
  for (const m of text.matchAll(BASE64URL)) {
    if (out.length >= MAX_BLOBS) break;
    if (m[0].length > MAX_BLOB_CHARS || !/[_-]/.test(m[0])) continue;
    take(m.index, "base64", Buffer.from(m[0], "base64url"));
  }
  for (const m of text.matchAll(HEX)) {
    if (out.length >= MAX_BLOBS) break;
    if (m[0].length > MAX_BLOB_CHARS) continue;
    take(m.index, "hex", Buffer.from(m[0], "hex"));
  }
  for (const m of text.matchAll(HEX_ESCAPES)) {
    if (out.length >= MAX_BLOBS) break;
    if (m[0].length > MAX_BLOB_CHARS) continue;
    take(m.index, "hex", Buffer.from(m[0].replace(/\\x/g, ""), "hex"));
  }
  return out;
}

/** The bytes as text when they are UTF-8 of printable characters (tabs and newlines allowed); null otherwise. */
function readable(bytes: Buffer): string | null {
  if (bytes.length < 8) return null;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  let printable = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c === 0) return null;
    if (c >= 0x20 || c === 9 || c === 10 || c === 13) printable++;
  }
  // Nearly every character printable, and at least one space or punctuation a command needs:
  // random identifiers decode to noise, which fails one or the other.
  return printable >= text.length * 0.95 && /[\s|;&/.$]/.test(text) ? text : null;
}
