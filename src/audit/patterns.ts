/**
 * The shapes of shell and script text several rules share: what fetches, what decodes, what
 * runs. One place for each, so "runs" means the same thing to every rule that asks.
 */
import { hostClass, hostOf, type HostClass } from "./host-class.js";

/**
 * A program or call that downloads: the download tools, and the calls of Python, PowerShell and
 * Ruby (`URI.open`) that do the same (Node's and Perl's: FETCH_CALL, below).
 */
export const FETCH =
  /\b(?:curl|wget|aria2c|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|Start-BitsTransfer|bitsadmin|certutil(?:\.exe)?\s+[^\n]*-urlcache|DownloadString|DownloadFile|DownloadData|urlopen|urlretrieve|requests\.get|httpx\.get|URI\.open)\b/i;

// Node's and Perl's downloads, in the one letter case they are written in (as the triggers' literals are).
const FETCH_CALL = /\bhttps?\.get\s*\(|LWP::(?:Simple|UserAgent)\b/;

/** Where a line downloads: FETCH, or Node's `https.get(` or Perl's `LWP::Simple`. */
export function fetchAt(line: string): RegExpExecArray | null {
  return FETCH.exec(line) ?? FETCH_CALL.exec(line);
}

/**
 * Windows programs that download and run in one step: `mshta URL`, `regsvr32 /i:URL scrobj.dll`,
 * `msiexec /i URL`, `rundll32 …javascript:…URL`. Each is its own fetch and its own run.
 */
export const SELF_RUN_FETCH =
  /\bmshta(?:\.exe)?\s+["']?(?:https?|ftp):\/\/|\bregsvr32(?:\.exe)?\b[^\n]*\/i:\s*["']?https?:\/\/|\bmsiexec(?:\.exe)?\b[^\n]*\/(?:i|package)\s+["']?https?:\/\/|\brundll32(?:\.exe)?\b[^\n]*\bjavascript:[^\n]*https?:\/\//i;

/**
 * Text turned back from an encoding: base64 / base32 / hex tools in every spelling people use
 * (`base64 -d`, `-D`, `--decode`, `-di`, `openssl base64 -d`, `openssl enc -d -a`, `xxd -r -p`),
 * hex and octal escapes given to `printf`, letter rotations by `tr`, `rev`, and the library
 * calls that do the same in Python, Node, Ruby, Perl and PowerShell (char codes, marshal, zlib).
 */
export const DECODE = new RegExp(
  [
    String.raw`\bbase(?:64|32)\s+(?:-[a-zA-Z]+\s+)*(?:-[a-ce-zA-CE-Z]*[dD][a-zA-Z]*|--decode)\b`,
    String.raw`\bbasenc\b[^\n|]*--decode`,
    String.raw`\bopenssl\s+(?:enc\s+)?[^\n|]*(?:-?base64|-a)\b[^\n|]*\s-d\b`,
    String.raw`\bopenssl\s+(?:enc\s+)?[^\n|]*\s-d\b[^\n|]*\s(?:-base64|-a)\b`,
    String.raw`\bxxd\s+(?:-[a-z]+\s+)*-r`,
    String.raw`\buudecode\b`,
    String.raw`\b(?:urlsafe_)?b(?:64|32|16|85)decode\b`,
    String.raw`\bdecode(?:64|_base64|bytes)\b`,
    String.raw`\bFromBase64String\b`,
    String.raw`\batob\s*\(`,
    String.raw`\bBuffer\.from\s*\([^)]*,\s*['"](?:base64|base64url|hex)['"]`,
    String.raw`\bbytes\.fromhex\b`,
    String.raw`\bunhexlify\b`,
    String.raw`\bcodecs\.decode\b`,
    String.raw`\bunpack\s*\(\s*['"][mH]`,
    String.raw`\b(?:printf|echo\s+-e|echo\s+-ne|echo\s+\$)\s*['"]?(?:\\x[0-9a-fA-F]{2}|\\[0-3][0-7]{2}){4,}`,
    String.raw`\brev\b\s*\|`,
    // rot13 and other letter rotations: `tr 'A-Za-z' 'N-ZA-Mn-za-m'`. A case change (`tr A-Z a-z`)
    // maps onto a set starting at `a` or `A`, and is not one.
    String.raw`\btr\s+['"]?(?:A-Za-z|a-zA-Z|A-Z|a-z)['"]?\s+['"]?[B-Zb-z]-[A-Za-z]`,
    // Char codes run as they are built (a minified library has both words on its one line, apart).
    String.raw`\b(?:eval|Function|execSync|exec)\s*\(\s*String\.fromCharCode\s*\(`,
    String.raw`\bmarshal\.loads\b`,
    String.raw`\bzlib\.decompress\b`,
    String.raw`\bcertutil(?:\.exe)?\s+(?:-f\s+)?-decode(?:hex)?\b`,
  ].join("|"),
  "i",
);

/**
 * What hands text on stdin to a shell or interpreter: `| sh`, `| sudo bash -s --`, `| python3`,
 * `| python -`, `| iex`, `| source /dev/stdin`. `| python -m json.tool` or `| bash -c '...'`
 * run something else, not the text: they are not runs.
 */
export const PIPE_RUN = new RegExp(
  [
    String.raw`\|\s*(?:sudo\s+(?:-[A-Za-z]+\s+)*)?(?:(?:[\w./-]*\/)?env\s+(?:\w+=\S*\s+)*)?(?:[\w./-]*\/)?(?:ba|z|da|k|c|tc|fi|a|mk)?sh(?:\.exe)?(?=\s*$|\s*[;&|)\x60'"]|\s*-->|\s*<\/|\s+\d?>|\s+-s\b|\s+-\s|\s+-$|\s+--\s|\s+-[xeiv]+\b|\s+-s$)`,
    String.raw`\|\s*(?:sudo\s+(?:-[A-Za-z]+\s+)*)?(?:(?:[\w./-]*\/)?env\s+)?(?:[\w./-]*\/)?(?:python[0-9.]*|py|perl|ruby|node|deno|bun|php|pwsh|powershell(?:\.exe)?|osascript)(?=\s*$|\s*[;&|)\x60'"]|\s*-->|\s*<\/|\s+-\s|\s+-$)`,
    String.raw`\|\s*(?:iex|Invoke-Expression)\b`,
    String.raw`\|\s*source\s*(?:\/dev\/stdin)?(?=\s*$|\s*[;&|)])`,
  ].join("|"),
  "i",
);

/**
 * What runs the output of a command substitution or a downloaded/decoded string: `eval "$(…)"`,
 * `bash -c "$(…)"`, `sh <(…)`, `source <(…)`, `iex (…)`, and the script-language calls
 * (`exec(`, `eval(`, `new Function(`, `os.system(`, `subprocess.…(`, `child_process`).
 */
export const WRAP_RUN = new RegExp(
  [
    String.raw`\b(?:eval|exec)\s+["']?(?:\$\(|\x60)`,
    String.raw`\b(?:ba|z|da|k)?sh\s+(?:-\w+\s+)*-c\s+["']?(?:\$\(|\x60)`,
    String.raw`\b(?:ba|z|da|k)?sh\s+(?:-\w+\s+)*<\(`,
    String.raw`\bsource\s+<\(`,
    String.raw`(?:^|[\s;&|])\.\s+<\(`,
    String.raw`\b(?:iex|Invoke-Expression)\b`,
    // An interpreter given the substitution as its program: `python3 -c "$(curl …)"`, `osascript -e "$(…)"`, `node <(…)`.
    String.raw`\b(?:python[0-9.]*|node|deno|bun|perl|ruby|php|osascript|pwsh|powershell)\s+(?:-\w+\s+)*-(?:c|e|r|Command)\s+["']?(?:\$\(|\x60)`,
    String.raw`\b(?:python[0-9.]*|node|deno|bun|perl|ruby|php)\s+(?:-\w+\s+)*<\(`,
  ].join("|"),
  "i",
);

/** A script language handing a string to be run (used with DECODE or FETCH on the same line). */
export const LANG_RUN =
  /\b(?:exec|eval|execfile|Function|execSync|spawnSync|system|popen|os\.system|os\.popen|subprocess\.\w+|child_process|Invoke-Expression|iex|instance_eval|class_eval|Kernel\.eval|IO\.popen)\s*\(|\bnew\s+Function\b|\bexec\s+(?:compile|__import__|base64|codecs|zlib|bytes)\b|\beval\s+(?:decode_base64|unpack|MIME)|\|\s*iex\b/i;

/** A program run from a file just written: `chmod +x`, `./x`, `bash x.sh`, `open x.app`, `Start-Process`. */
export const RUN_FILE =
  /\bchmod\s+(?:[ugoa]*\+[rwx]*x|[0-7]*[1357][0-7]{0,2})\b|(?:^|[\s;&|(])\.\/[\w.-]+|(?:^|[\s;&|(])(?:sudo\s+)?(?:ba|z)?sh\s+(?:\/tmp\/|~\/|\$\w+|[\w.-]+\.sh\b)|\bStart-Process\b|\bmsiexec\b|\binstaller\s+-pkg\b|(?:^|[\s;&|])open\s+[^\n]*\.(?:app|dmg|pkg)\b|(?:^|[\s;&|])start\s+[^\n]*\.exe\b|\bhdiutil\s+attach\b/i;

/** A power shell told to run an encoded command: `powershell -enc <base64>`. */
export const ENCODED_POWERSHELL = /\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]*\s[-\/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedcommand)\s+["']?[A-Za-z0-9+/]{16,}={0,2}/i;

const URL = /\b(?:https?|ftps?):\/\/[^\s'"\x60<>)\]}|\\]+/gi;
// A download named by a bare address without a scheme (`curl 203.0.113.7/x`).
const BARE_ADDRESS = /(?<![\w.\/:@-])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?=\/|\s|$|['"])/g;

export interface UrlSeen {
  readonly url: string;
  readonly index: number;
  readonly cls: HostClass | null;
}

/** Every URL on a line, with its host's class. */
export function urlsOn(line: string): UrlSeen[] {
  const out: UrlSeen[] = [];
  for (const m of line.matchAll(URL)) {
    const host = hostOf(m[0]);
    out.push({ url: m[0], index: m.index, cls: host ? hostClass(host) : null });
  }
  for (const m of line.matchAll(BARE_ADDRESS)) {
    if (out.some((u) => m.index >= u.index && m.index < u.index + u.url.length)) continue;
    out.push({ url: m[0], index: m.index, cls: hostClass(m[0].replace(/:\d+$/, "")) });
  }
  return out;
}

/** Whether a line runs what it fetched or decoded: a run pipe after `from`, or a wrapping run anywhere. */
export function runsOn(line: string, from: number): boolean {
  const pipe = PIPE_RUN.exec(line.slice(from));
  if (pipe) return true;
  return WRAP_RUN.test(line) || LANG_RUN.test(line);
}
