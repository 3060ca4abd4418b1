import type { Diagnostic } from "./diagnostic.js";

/** One node of a `metadata.requirements` tree (SPEC §3.3). Evaluation lives in `src/access`. */
export type Requirement =
  | { kind: "env"; name: string }
  | { kind: "binary"; name: string }
  | { kind: "skill"; name: string }
  | { kind: "all"; items: Requirement[] }
  | { kind: "any"; items: Requirement[] };

export interface Requirements {
  /** The one required root; null when only `optional` items were declared. */
  root: Requirement | null;
  /** Reported when missing, never blocking. */
  optional: Requirement[];
}

/** The frontmatter of one skill, read leniently (SPEC §1). */
export interface SkillManifest {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  /**
   * `metadata` as written; non-string values are kept (and warned), never dropped. Without
   * metadata this is one shared frozen empty object (`NO_FIELDS`), as is `extra` without extra keys.
   */
  metadata: Record<string, unknown>;
  /** `allowed-tools`: pre-approved tools, normalised to a list; null when absent. */
  allowedTools: string[] | null;
  /** `tools`: the surface this skill narrows to while loaded; null when absent. */
  tools: string[] | null;
  /** Parsed requirement tree; null when none declared. */
  requirements: Requirements | null;
  /** Set when `metadata.requirements` is malformed: availability is then `invalid`. */
  requirementsError: string | null;
  disableModelInvocation: boolean;
  /**
   * How a person or the model starts the skill, as Claude Code reads it (`argument-hint`,
   * `arguments`, `user-invocable`, `when_to_use`). One shared frozen object
   * (`DEFAULT_INVOCATION`) for a skill that declares none of them and whose body has no `$ARGUMENTS`.
   */
  invocation: SkillInvocation;
  /** Every key the standard and our hosts do not define, kept as written. */
  extra: Record<string, unknown>;
}

/** The Claude Code fields about starting a skill (SPEC §1 table, §7 MCP prompts). */
export interface SkillInvocation {
  /** `argument-hint`: what to type after the name (`[issue-number] [priority]`); null when absent. */
  argumentHint: string | null;
  /** `arguments`: the names of the words typed after the name, in order (`$issue` is the first). */
  argumentNames: readonly string[];
  /** Takes text after its name: it declares `argument-hint` or `arguments`, or its body uses `$ARGUMENTS`. */
  takesArguments: boolean;
  /** `user-invocable: false` ⇒ false: no person starts it (not an MCP prompt); the model still may. */
  userInvocable: boolean;
  /** `when_to_use`, trimmed; shown after the description wherever the catalog shows it. Null when absent. */
  whenToUse: string | null;
}

/**
 * Identity of the SKILL.md bytes a record was built from; a change means re-read. The ctime is
 * part of it: anyone who can write the file can put its size and mtime back after rewriting it
 * (`touch -d`, `utimes`), but not its ctime, which every write and every `utimes` moves. (A
 * write through a shared memory mapping moves no stamp at all until the kernel writes the pages
 * back, and then only the mtime and ctime: SECURITY.md.)
 */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/**
 * Level-1 record of one loadable skill: metadata only, no body. The body is read at
 * activation (see `readSkillBody`), so a 10,000-skill registry holds kilobytes, not megabytes.
 */
export interface SkillPackage {
  name: string;
  description: string;
  /** Absolute real path of the skill directory. */
  dir: string;
  /** Absolute path of the SKILL.md (or lowercase skill.md) file. */
  skillFile: string;
  manifest: SkillManifest;
  stamp: FileStamp;
  /** Warnings from loading (errors make a skill unloadable, so a loaded skill has none). */
  diagnostics: Diagnostic[];
  /**
   * Present (true) when the frontmatter, read as loaded (no quoting retry), is already what the
   * MCP Skills Extension serves: its rule (`entryFrontmatter`) finds no problem and leaves
   * nothing out. Whoever asks whether the extension serves the skill then needs the SKILL.md
   * bytes again only if they changed since (`stamp`). Absent: decide from the file.
   */
  entryReady?: true;
  /** What the inspection the loader was given found in SKILL.md (`SkillTextInspector`); absent when nothing or none ran. */
  findings?: readonly TextFinding[];
}

/**
 * One finding of an inspection of SKILL.md's text made while it loads (the audit's, SPEC §12),
 * kept with the record: the shape the audit layer's `Finding` has, without its excerpt (a record
 * holds level-1 metadata, not the text).
 */
export interface TextFinding {
  readonly rule: string;
  readonly severity: "block" | "warn";
  /** Relative to the skill folder. */
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/**
 * Judges SKILL.md's whole text while it loads, given the frontmatter as parsed (null when it
 * does not parse). Handed in by the registry, which knows the audit: the package layer does not.
 */
export type SkillTextInspector = (text: string, frontmatter: Record<string, unknown> | null) => readonly TextFinding[];

export interface LoadResult {
  /** null when the skill cannot be used; `diagnostics` then holds at least one error. */
  skill: SkillPackage | null;
  diagnostics: Diagnostic[];
}
