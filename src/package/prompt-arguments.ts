/**
 * The text a person types after a skill's name (`/fix-issue 123 high`), put into its body the
 * way Claude Code does (SPEC §7 MCP prompts): `$ARGUMENTS` is the text as typed,
 * `$ARGUMENTS[N]` and `$N` its N-th word (0-based) split as a shell splits it, `$name` the word
 * at the position `arguments` gives that name, and a body that names no placeholder gets
 * `ARGUMENTS: <text>` appended when there is text. Only a prompt (a person asking) is
 * substituted; the `skill` tool's activation returns the body as written.
 *
 * Where this differs from Claude Code, on purpose:
 * - one pass over the body, so a value is put in as typed and never read again for placeholders
 *   (Claude Code replaces one kind after another, so a word `$1` typed as the first argument was
 *   itself replaced by the second, and `$&` in a value was JavaScript's replacement pattern);
 * - a word a shell would read as an operator, a glob or a comment (`|`, `*.ts`, `#123`) stays a
 *   word as typed, where Claude Code drops it: a person writing `/fix-issue #123` means the issue;
 * - a quote left open (`it's`) splits the text at blanks, as Claude Code does when its parser
 *   fails (shell-quote would drop the quote and join words silently).
 */
import { parse } from "shell-quote";

export interface PromptArgumentValues {
  /** The text typed after the skill's name, as typed; absent when none was given. */
  text?: string;
  /** Values given by name (an MCP client's field per name `arguments` lists); an empty one counts as not given. */
  named?: Readonly<Record<string, string>>;
}

/** The words of `text` as a shell splits them: blanks separate, quotes group and are stripped, `\` escapes. */
export function argumentWords(text: string): string[] {
  if (text.trim() === "") return [];
  if (!quotesClosed(text)) return blankSplit(text);
  let entries: ReturnType<typeof parse>;
  try {
    // A variable stays as written (`$HOME` is the word `$HOME`): the text is a person's, not a shell's.
    entries = parse(text, (key: string) => `$${key}`);
  } catch {
    return blankSplit(text);
  }
  const words: string[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") words.push(entry);
    else if ("comment" in entry) words.push(...blankSplit(`#${entry.comment}`));
    else if ("pattern" in entry) words.push(entry.pattern);
    else if ("op" in entry) words.push(entry.op);
  }
  return words;
}

function blankSplit(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== "");
}

/** Whether every quote opened in `text` is closed, as a shell reads quotes (a backslash escapes outside single quotes). */
function quotesClosed(text: string): boolean {
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === "\\") {
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  return quote === null;
}

/**
 * The body with the arguments put in. `names` are the skill's `arguments`, in order. A value
 * given by name takes that name's place among the words; with no text given, the text
 * (`$ARGUMENTS`) is then those words, shell-quoted, so it still reads as something typed.
 */
export function substituteArguments(body: string, names: readonly string[], values: PromptArgumentValues): string {
  const words = values.text !== undefined ? argumentWords(values.text) : [];
  let filled = false;
  names.forEach((name, index) => {
    const value = values.named?.[name];
    if (value === undefined || value === "") return;
    while (words.length < index) words.push("");
    words[index] = value;
    filled = true;
  });
  const text = values.text ?? (filled ? quoteWords(words) : "");
  const pattern = placeholderPattern(names);
  let found = false;
  const result = body.replace(pattern, (match: string, name: string | undefined, indexed: string | undefined, short: string | undefined) => {
    found = true;
    if (name !== undefined) return wordOr(words, names.indexOf(name), match);
    if (indexed !== undefined) return wordOr(words, Number(indexed), match);
    if (short !== undefined) return wordOr(words, Number(short), match);
    return text;
  });
  if (!found && text.trim() !== "") return `${body}\n\nARGUMENTS: ${text}`;
  return result;
}

/** The N-th word; a placeholder with no word stays as written, so the model sees what was missing. */
function wordOr(words: readonly string[], index: number, asWritten: string): string {
  return index >= 0 && index < words.length ? words[index]! : asWritten;
}

function quoteWords(words: readonly string[]): string {
  // Plain words stay plain; one holding a blank, a quote or a shell character is single-quoted.
  return words.map((word) => (/^[\p{L}\p{N}_@%+=:,./-]+$/u.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/**
 * Every placeholder, in Claude Code's order of precedence: a name (not followed by `[` or a word
 * character, so `$issue` is not the start of `$issues`), `$ARGUMENTS[N]`, `$N` (not followed by
 * a word character), `$ARGUMENTS`. Longer names first, so `$old-name` is not `$old` then `-name`.
 */
function placeholderPattern(names: readonly string[]): RegExp {
  const named = [...names].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const parts = [...(named.length > 0 ? [`\\$(${named.join("|")})(?![\\[\\w])`] : ["(?!)()"]), "\\$ARGUMENTS\\[(\\d+)\\]", "\\$(\\d+)(?!\\w)", "\\$ARGUMENTS"];
  return new RegExp(parts.join("|"), "g");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
