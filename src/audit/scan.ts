/**
 * The scanner: runs the rules table over one text, one file's bytes, or SKILL.md with its
 * frontmatter, and turns hits into findings. Blobs of base64 or hex are decoded and the decoded
 * text judged by the same rules, at most MAX_DEPTH decodings deep (a blob inside a blob).
 */
import { ENCODED_PAYLOAD, NATIVE_EXECUTABLE, SHELL_PREAPPROVED, TEXT_RULES, type Hit, type Rule } from "./rules.js";
import { CHAR_CODE_WORDS, codedTexts, decodedBlobs } from "./decode.js";
import { kindOf, lineAt, textDoc, type FileKind, type TextDoc } from "./text-doc.js";
import { triggersOf, vocabularyOf, wordsAskedBy, type Triggers } from "./triggers.js";
import type { Finding } from "./types.js";

const MAX_DEPTH = 2;

// The words the rules' `needs` (and the char-code decoding) ask about, found in one scan per text.
const VOCABULARY = vocabularyOf([...wordsAskedBy(TEXT_RULES.map((r) => r.needs), 64), ...CHAR_CODE_WORDS]);

// What a decoded blob must look like to be a hidden command rather than hidden data.
const COMMAND_LIKE =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-Expression|iex|bash|zsh|sh\s+-c|powershell|pwsh|nc|ncat|chmod\s+\+x|python[0-9.]*\s+-c|osascript|eval|exec|rm\s+-rf)\b|\/dev\/tcp\/|\|\s*(?:ba)?sh\b/i;

function finding(rule: Rule, file: string, hit: Hit, prefix = ""): Finding {
  const message = `${prefix}${rule.reason}${hit.detail ? ` (${hit.detail})` : ""}`;
  return { rule: rule.id, severity: rule.severity, file, line: hit.line, message, excerpt: hit.excerpt };
}

/**
 * Answers "yes" to every trigger question, so every rule reads the text: what the audit finds
 * with the triggers skipping rules must be exactly what it finds without (the property test).
 */
const EVERY_RULE = (text: string): Triggers => ({ text, any: () => true, holds: () => true, nonAscii: () => true });

let triggersFor: (text: string) => Triggers = (text) => triggersOf(text, VOCABULARY);

/** `run` with no rule skipped by its triggers: for the test that skipping never changes a finding. */
export function withEveryRule<T>(run: () => T): T {
  const saved = triggersFor;
  triggersFor = EVERY_RULE;
  try {
    return run();
  } finally {
    triggersFor = saved;
  }
}

function scanText(file: string, text: string, depth: number, kind?: FileKind): Finding[] {
  const triggers = triggersFor(text);
  let doc: TextDoc | null = null;
  const out: Finding[] = [];
  for (const rule of TEXT_RULES) {
    if (!rule.needs(triggers)) continue;
    doc ??= textDoc(file, text, depth, kind);
    for (const hit of rule.scan(doc)) out.push(finding(rule, file, hit));
  }
  if (depth < MAX_DEPTH) {
    for (const blob of [...decodedBlobs(text), ...codedTexts(text, triggers.any(...CHAR_CODE_WORDS))]) {
      const line = lineAt(text, blob.index);
      const shown = blob.text.replace(/\s+/g, " ").trim().slice(0, 120);
      const prefix = `decoded from ${blob.encoding} ${JSON.stringify(shown)}: `;
      // The decoded text is judged as a script: it is what would run.
      for (const inner of scanText(file, blob.text, depth + 1, "script")) {
        out.push({ ...inner, line, message: inner.message.startsWith("decoded from") ? inner.message : `${prefix}${inner.message}` });
      }
      if (COMMAND_LIKE.test(blob.text)) {
        out.push(finding(ENCODED_PAYLOAD, file, { line, excerpt: shown }, `decoded from ${blob.encoding}: `));
      }
    }
  }
  return dedupe(out);
}

/** One finding per rule and line: a line that trips a rule twice (two URLs, a decoded echo) says it once. */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.rule}\0${f.file}\0${f.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function auditText(file: string, text: string): Finding[] {
  return inContext(kindOf(file, text), text, scanText(file, text, 0)).sort(byLine);
}

// Words of text that discusses attacks: a security guide or a scanner's own reference shows the
// techniques it teaches to recognise (`curl … | bash` from attacker.com, a base64 dropper).
const ATTACK_TALK =
  /\b(?:attack(?:er|ers|s|ed)?|malicious|malware|exploit\w*|vulnerab\w*|injection|payloads?|evil|dangerous|red[- ]flags?|adversar\w*|exfiltrat\w*|compromis\w*|insecure|anti-?patterns?|backdoors?|reverse\s+shells?|obfuscat\w*|evade|evasion|steal\w*|phishing)\b/gi;
// How many lines before and after a finding are read for that talk, and how many of its words make it a discussion.
const CONTEXT_BEFORE = 15;
const CONTEXT_AFTER = 5;
const TALK_WORDS = 2;
// Hidden text is hidden whatever surrounds it: these rules stay blocking in any context.
const ALWAYS_BLOCK = new Set(["invisible-tag-characters", "bidi-control", "variation-selector-smuggling", "native-executable"]);

/**
 * Blocking findings in prose (not in a script) that discusses attacks are shown as warnings:
 * the text describes the technique to a reader, it does not tell one to run it. A script is what
 * runs, so its findings keep their severity.
 */
function inContext(kind: FileKind, text: string, findings: Finding[]): Finding[] {
  if (kind === "script" || !findings.some((f) => f.severity === "block")) return findings;
  const lines = text.split("\n");
  return findings.map((f) => {
    if (f.severity !== "block" || ALWAYS_BLOCK.has(f.rule)) return f;
    const around = lines.slice(Math.max(0, f.line - 1 - CONTEXT_BEFORE), f.line + CONTEXT_AFTER).join("\n");
    const words = new Set([...around.matchAll(ATTACK_TALK)].map((m) => m[0].toLowerCase()));
    if (words.size < TALK_WORDS) return f;
    return { ...f, severity: "warn", message: `in text that discusses attacks: ${f.message}` };
  });
}

export function byLine(a: Finding, b: Finding): number {
  return a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1;
}

// A tool list entry that approves every command of a shell: `Bash`, `Bash(*)`, `Bash(*:*)`, `Shell`.
const WHOLE_SHELL = /^(?:bash|shell|sh|zsh|powershell|terminal|run_shell_command|exec_command)(?:\(\s*(?:\*|\*:\*|:\*|\*\*|)\s*\))?$/i;

function toolList(value: unknown): string[] {
  if (typeof value === "string") return value.split(/[\s,]+(?![^()]*\))/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string").flatMap(toolList);
  return [];
}

export function auditSkillMd(text: string, frontmatter: Record<string, unknown> | null): Finding[] {
  const out = inContext("markdown", text, scanText("SKILL.md", text, 0, "markdown"));
  const tools = frontmatter ? toolList(frontmatter["allowed-tools"]) : [];
  const whole = tools.find((t) => WHOLE_SHELL.test(t.trim()) || t.trim() === "*");
  if (whole !== undefined) {
    const index = text.search(/^allowed-tools\s*:/m);
    out.push(finding(SHELL_PREAPPROVED, "SKILL.md", { line: index === -1 ? 1 : lineAt(text, index), excerpt: whole }));
  }
  return out.sort(byLine);
}

/** Which native executable format the bytes start with, or null. */
export function executableFormat(bytes: Uint8Array): string | null {
  if (bytes.length < 4) return null;
  const b = (i: number): number => bytes[i] ?? 0;
  if (b(0) === 0x7f && b(1) === 0x45 && b(2) === 0x4c && b(3) === 0x46) return "ELF";
  const be = ((b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)) >>> 0;
  if (be === 0xfeedface || be === 0xfeedfacf || be === 0xcefaedfe || be === 0xcffaedfe) return "Mach-O";
  if (be === 0xcafebabe || be === 0xcafebabf) {
    // Java class files share the universal binary's magic; there the next word is a version
    // (45 and up), in a universal binary it is the number of architectures (a handful).
    const next = ((b(4) << 24) | (b(5) << 16) | (b(6) << 8) | b(7)) >>> 0;
    return next > 0 && next < 20 ? "Mach-O universal" : null;
  }
  if (b(0) === 0x4d && b(1) === 0x5a && bytes.length >= 64) {
    const peAt = b(0x3c) | (b(0x3d) << 8) | (b(0x3e) << 16) | (b(0x3f) << 24);
    if (peAt > 0 && peAt + 4 <= bytes.length && b(peAt) === 0x50 && b(peAt + 1) === 0x45 && b(peAt + 2) === 0 && b(peAt + 3) === 0) return "PE";
    // A DOS executable without a PE header, or one cut short: the stub's message says what it is.
    if (Buffer.from(bytes.subarray(0, Math.min(bytes.length, 512))).includes("This program cannot be run in DOS mode")) return "PE";
  }
  return null;
}

/** The bytes as UTF-8 text, or null for a binary file (a NUL, or not UTF-8). */
export function textOf(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

export function auditBytes(file: string, bytes: Uint8Array): Finding[] {
  const format = executableFormat(bytes);
  if (format) return [finding(NATIVE_EXECUTABLE, file, { line: 1, excerpt: format, detail: format })];
  const text = textOf(bytes);
  return text === null ? [] : auditText(file, text);
}
