/**
 * Cheap decoding of the blobs a command line carries (SPEC §12: decode what is cheap to decode
 * and judge what it decodes to): base64 (standard and URL-safe), hex digits and `\xNN` escapes.
 * Only decodings that read as text are kept; an image or a hash decodes to bytes and is dropped.
 */
import { Buffer } from "node:buffer";
import { gunzipSync, inflateSync } from "node:zlib";

export interface Decoded {
  /** Where the blob starts in the text it was found in. */
  readonly index: number;
  readonly encoding: "base64" | "gzip+base64" | "hex" | "char codes" | "octal";
  readonly text: string;
}

// Past these a blob is an embedded file (a font, an image), not a command, and decoding it costs.
const MAX_BLOB_CHARS = 16 * 1024;
const MAX_BLOBS = 64;

// One pass finds every run of the characters a blob is made of; each run is then told apart
// (hex, base64, URL-safe base64) by its own characters, instead of one pass per encoding.
// Anchored on the character before a run, so a failed try costs one step per position instead of
// up to 24 (a text of long words was slow to search otherwise).
export const RUN = /(?:^|[^A-Za-z0-9+/_\\-])([A-Za-z0-9+/_-]{24,}={0,2}|(?:\\x[0-9a-fA-F]{2}){8,})/g;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$|^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

// The characters a run is made of, by code unit: a run needs at least MIN_RUN of them in a row.
const IN_RUN = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") IN_RUN[c.charCodeAt(0)] = 1;
const MIN_RUN = 24;

/**
 * Whether `text` may hold a run RUN matches: MIN_RUN characters of a run in a row, or a `\x`.
 * Most text has no such run, and this finds out reading about half its characters: a window of
 * MIN_RUN whose last character is not of a run holds no run, so the next window starts after it;
 * otherwise the window is read backwards to its last character not of a run.
 */
export function mayHoldRun(text: string): boolean {
  if (text.includes("\\x")) return true;
  const inRun = (i: number): boolean => {
    const c = text.charCodeAt(i);
    return c < 128 && IN_RUN[c] === 1;
  };
  let start = 0;
  while (start + MIN_RUN <= text.length) {
    let k = start + MIN_RUN - 1;
    while (k >= start && inRun(k)) k--;
    if (k < start) return true;
    start = k + 1;
  }
  return false;
}

/** Every blob in `text` that decodes to readable text, at most MAX_BLOBS of them. */
export function decodedBlobs(text: string): Decoded[] {
  const out: Decoded[] = [];
  if (!mayHoldRun(text)) return out;
  for (const m of text.matchAll(RUN)) {
    if (out.length >= MAX_BLOBS) break;
    const run = m[1]!;
    const index = m.index + m[0].length - run.length;
    if (run.length > MAX_BLOB_CHARS) continue;
    let decoded: string | null = null;
    let encoding: Decoded["encoding"] = "base64";
    if (run.startsWith("\\x")) {
      encoding = "hex";
      decoded = readable(Buffer.from(run.replace(/\\x/g, ""), "hex"));
    } else if (HEX.test(run) && run.length >= 24) {
      encoding = "hex";
      decoded = readable(Buffer.from(run, "hex"));
    }
    if (decoded === null && BASE64.test(run) && /[0-9+/]|[A-Z].*[a-z]/.test(run)) {
      encoding = "base64";
      const bytes = Buffer.from(run, "base64");
      decoded = readable(bytes);
      // Compressed, then encoded (`… | base64 -d | gunzip | sh`): inflated, bounded, and judged the same.
      const inflated = decoded === null ? inflate(bytes) : null;
      if (inflated !== null) {
        encoding = "gzip+base64";
        decoded = readable(inflated);
      }
    }
    if (decoded === null && /[_-]/.test(run) && BASE64URL.test(run)) {
      encoding = "base64";
      decoded = readable(Buffer.from(run, "base64url"));
    }
    if (decoded !== null) out.push({ index, encoding, text: decoded });
  }
  return out;
}

// Past this a compressed blob is not a command line.
const MAX_INFLATED_BYTES = 64 * 1024;

/** The bytes inflated when they start as gzip or zlib data does, else null. */
function inflate(bytes: Buffer): Buffer | null {
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const zlib = bytes[0] === 0x78 && (bytes[1] === 0x01 || bytes[1] === 0x5e || bytes[1] === 0x9c || bytes[1] === 0xda);
  if (!gzip && !zlib) return null;
  try {
    return (gzip ? gunzipSync : inflateSync)(bytes, { maxOutputLength: MAX_INFLATED_BYTES });
  } catch {
    return null;
  }
}

// A script building its text from character codes (`String.fromCharCode(99,117,…)`, `bytes([99,…])`,
// `[char[]](99,…)`, `chr(99)+chr(117)`): the list is only read where such a call is in the text,
// as a list of numbers alone is data (a table, a palette) far more often than text.
const CHAR_CODE_CALL = /\bfromCharCode\b|\bchr\s*\(|\bbytes\s*\(|\bbytearray\s*\(|\[char\[?\]?\]|\bpack\s*\(\s*['"][cCU]\*/;
// What CHAR_CODE_CALL needs: a word its every spelling bounds on both sides, so the triggers' word
// scan answers for it (a native look for `chr` alone was true of every text naming Chrome).
export const CHAR_CODE_WORDS = ["fromcharcode", "chr", "bytes", "bytearray", "char", "pack"];
const CHAR_CODE_LIST = /(?<![\d.])(?:(?:\d{1,3}|0x[0-9a-fA-F]{1,2})\s*,\s*){7,}(?:\d{1,3}|0x[0-9a-fA-F]{1,2})(?![\d.])/g;
// Octal escapes (`printf '\143\165\162\154'`, `$'\143…'`), eight or more in a row.
const OCTAL_RUN = /(?:\\[0-3][0-7]{2}){8,}/g;

/**
 * Text spelled as character codes or octal escapes, decoded when it reads as text. `mayCallCharCodes`
 * is whether the text holds one of CHAR_CODE_WORDS (the caller's triggers know).
 */
export function codedTexts(text: string, mayCallCharCodes: boolean): Decoded[] {
  const out: Decoded[] = [];
  if (text.includes("\\") && /\\[0-3][0-7]{2}\\[0-3][0-7]{2}/.test(text)) {
    for (const m of text.matchAll(OCTAL_RUN)) {
      if (out.length >= MAX_BLOBS || m[0].length > MAX_BLOB_CHARS) break;
      const codes = m[0].split("\\").slice(1).map((o) => parseInt(o, 8));
      const decoded = readable(Buffer.from(codes));
      if (decoded !== null) out.push({ index: m.index, encoding: "octal", text: decoded });
    }
  }
  if (mayCallCharCodes && CHAR_CODE_CALL.test(text)) {
    for (const m of text.matchAll(CHAR_CODE_LIST)) {
      if (out.length >= MAX_BLOBS || m[0].length > MAX_BLOB_CHARS) break;
      const codes = m[0].split(",").map((n) => Number(n.trim()));
      if (codes.some((c) => c > 126 || (c < 32 && c !== 9 && c !== 10 && c !== 13))) continue;
      const decoded = readable(Buffer.from(codes));
      if (decoded !== null) out.push({ index: m.index, encoding: "char codes", text: decoded });
    }
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
