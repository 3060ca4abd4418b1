/**
 * Seeded SKILL.md files in the shapes real skills use (quoted scalars, block and flow lists,
 * nested maps, block scalars, multi-line plain scalars, CRLF, BOM, tabs, unicode names, `---`
 * inside values, duplicate keys, anchors, tags, over-long fields...), for differential tests
 * against the reference validator. The same seed gives the same files.
 */

// One seeded generator for the suite and the benchmarks, so a printed seed replays anywhere.
export { seededRandom as random } from "../../bench/seeded-random.js";

export interface GeneratedSkill {
  dirName: string;
  content: string;
}

const NAMES = [
  "pdf-tools",
  "code-review",
  "my-skill",
  "a",
  "skill-2",
  "brand-guidelines",
  "技能",
  "мой-навык",
  "café",
  "cafe\u0301",
  "Upper-Case",
  "НАВЫК",
  "-edge",
  "edge-",
  "double--hyphen",
  "has space",
  "under_score",
  "ｆｕｌｌ",
  "dot.name",
  "x".repeat(64),
  "y".repeat(65),
  "émoji-😀",
  "123",
  "true",
  "null",
  "日本語-スキル",
];

const WORDS = [
  "Use",
  "this",
  "skill",
  "when",
  "the",
  "user",
  "asks",
  "for",
  "PDF",
  "forms",
  "extraction",
  "merging",
  "documents",
  "reviews",
  "code",
  "café",
  "日本語",
  "naïve",
  "emoji 🎉",
  "<tags>",
  "&",
  "it's",
  '"quoted"',
  "50%",
  "e.g.",
  "(optional)",
  "x,y",
  "a-b",
  "C++",
  "@mention",
];

const DESCRIPTION_HAZARDS = [
  "Use when: the user asks",
  "Triggers on a # hash",
  "Contains --- a rule",
  "Ends with colon:",
  "Has a tab\there",
  "Key: value: more",
  "- starts like a list",
  "? starts like a key",
  "[bracketed] start",
  "{braced} start",
  "*star start",
  "&amp start",
  "!bang start",
  "%percent start",
  "@at start",
  "`tick start",
  "| pipe start",
  "> angle start",
  "'quote start",
  "trailing spaces   ",
];

export function generateSkill(next: () => number): GeneratedSkill {
  const chance = (p: number): boolean => next() < p;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  const sentence = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(" ");

  // A third of files are tidy (standard fields, common styles): real collections are mostly valid.
  const tidy = chance(0.35);
  const hazard = (p: number): boolean => !tidy && chance(p);
  const name = tidy && chance(0.7) ? pick(NAMES.slice(0, 9)) : pick(NAMES);
  const dirName = chance(0.85) ? name.normalize(chance(0.5) ? "NFC" : "NFD").replace(/[\s/]/g, "-") || "skill" : pick(["other-dir", "Mismatch", "skill-x"]);

  const entries: string[][] = []; // each entry: the lines of one top-level field

  // name
  const render = (key: string, value: string): string[] => renderScalar(key, value, tidy, chance, pick, int);
  if (!hazard(0.03)) entries.push(render("name", name));
  // description
  if (!hazard(0.03)) {
    let description = sentence(int(1, 30));
    if (hazard(0.15)) description = pick(DESCRIPTION_HAZARDS) + " " + sentence(int(0, 5));
    if (chance(0.04)) description = "d".repeat(pick([1023, 1024, 1025, 1100]));
    if (hazard(0.03)) description = pick(["", "   ", "\t"]);
    entries.push(render("description", description));
  }
  if (chance(0.5)) entries.push(render("license", pick(["MIT", "Apache-2.0", "Complete terms in LICENSE.txt", "Proprietary. LICENSE.txt has complete terms"])));
  if (chance(0.3)) {
    if (hazard(0.15)) entries.push(["compatibility:", "  - claude-code", "  - codex"]);
    else entries.push(render("compatibility", chance(0.1) ? "c".repeat(pick([500, 501])) : sentence(int(1, 8))));
  }
  if (chance(0.4)) {
    const kind = tidy ? int(0, 2) : int(0, 3);
    if (kind === 0) entries.push(render("allowed-tools", "Read Write Bash(git:*)"));
    else if (kind === 1) entries.push(["allowed-tools:", "  - Read", "  - Bash(npm test:*)"]);
    else if (kind === 2) entries.push(["allowed-tools:", "- Read", "- Grep"]);
    else entries.push(["allowed-tools: [Read, Write]"]);
  }
  if (chance(0.3)) {
    const indent = !hazard(0.1) ? "  " : pick([" ", "    ", "\t"]);
    const lines = ["metadata:", `${indent}author: ${pick(["Jane Doe", '"Acme, Inc."', "'O''Brien'"])}`, `${indent}version: ${pick(["1.0", '"1.0.0"', "2"])}`];
    if (hazard(0.3)) lines.push(`${indent}tags: [a, b]`);
    if (chance(0.3)) lines.push(`${indent}nested:`, `${indent}${indent}key: value`);
    if (hazard(0.1)) lines.push(`${indent}other:`, `${indent}${indent}${indent}key: value`);
    if (hazard(0.1)) lines.push(`${indent}author: again`);
    entries.push(lines);
  }
  if (hazard(0.35)) entries.push(chance(0.5) ? ["tags: [pdf, forms]"] : ["tags:", "  - pdf", "  - forms"]);
  if (hazard(0.3)) entries.push([`version: ${pick(["1.0.0", '"1.0"', "2"])}`]);
  if (hazard(0.3)) entries.push([`author: ${pick(["Someone", '"A. Person <a@b.c>"', "'x'"])}`]);
  if (hazard(0.12)) entries.push(chance(0.4) ? ["requires: {mcp: [github]}"] : ["requires:", "  mcp:", "    - github", "  bins:", "    - git"]);
  if (hazard(0.1)) entries.push(["disable-model-invocation: true"]);
  if (hazard(0.05)) entries.push(['argument-hint: "[file]"']);

  // Hazards.
  if (hazard(0.05)) entries.push(pick([["name: duplicate"], ["description: again"], ["license: MIT"]]));
  if (hazard(0.03)) entries.push(["anchor: &a value", "alias: *a"]);
  if (hazard(0.02)) entries.push(["alias: *missing"]);
  if (hazard(0.03)) entries.push([`typed: ${pick(["!!str 1", "!custom x", "!<tag:yaml.org,2002:str> y"])}`]);
  if (hazard(0.02)) entries.push(["<<:", "  merged: yes"]);
  if (hazard(0.01)) entries.push(["value: <<"]);
  if (hazard(0.05)) entries.push([pick(["# a comment", "", "   ", "# ---"])]);
  if (hazard(0.02)) entries.push([pick(["\tindented: tab", "key:\tvalue", "key: value\t"])]);
  if (hazard(0.02)) entries.push([pick(["? complex", "? complex\n: value", "empty:", "'quoted key': v", '"ключ": значение'])]);
  if (hazard(0.01)) entries.push([pick(["...", "%YAML 1.2", "@bad: x", "`bad: x"])]);
  if (hazard(0.01)) entries.push(["bell: \u0007"]);
  if (hazard(0.02)) entries.push([pick(["description: a: b", "key value without colon", "  indented: oops"])]);

  // Real files put name and description first, mostly.
  const order = chance(0.8) ? entries : shuffle(entries, next);
  let frontmatter = order.map((lines) => lines.join("\n")).join("\n");
  if (hazard(0.02)) frontmatter = pick(["", "- a\n- b", "just text", "name"]);

  let open = "---";
  if (hazard(0.03)) open = pick(["--- ", "----", "---yaml"]);
  let body = pick(["", "# Title\n\nDo the thing.\n", "# Title\n\n---\n\nMore after a rule.\n", "Text with --- inside.\n"]);
  let text = hazard(0.03) ? `${open}\n${frontmatter}\n` : `${open}\n${frontmatter}\n---\n${body}`;
  if (hazard(0.02)) text = `\n${text}`;
  if (chance(0.05)) text = text.replace(/\n/g, "\r\n");
  if (hazard(0.03)) text = `\uFEFF${text}`;
  if (chance(0.01)) body = "";
  return { dirName, content: text };
}

function renderScalar(
  key: string,
  value: string,
  tidy: boolean,
  chance: (p: number) => boolean,
  pick: <T>(items: readonly T[]) => T,
  int: (lo: number, hi: number) => number,
): string[] {
  const style = tidy
    ? pick(["plain", "plain", "double", "double", "single", "literal", "folded", "multiline"] as const)
    : pick(["plain", "plain", "plain", "double", "double", "single", "literal", "folded", "multiline", "list", "empty"] as const);
  if (style === "double") {
    const escaped = value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\t/g, chance(0.5) ? "\\t" : "\t");
    return [`${key}: "${escaped}${chance(0.05) ? "\\u00e9" : ""}"`];
  }
  if (style === "single") return [`${key}: '${value.replace(/'/g, "''")}'`];
  if (style === "literal" || style === "folded") {
    const indicator = (style === "literal" ? "|" : ">") + pick(["", "", "-", "+", "2"]);
    const indent = pick(["  ", "  ", "    ", " "]);
    const words = value.split(" ");
    const lines: string[] = [];
    for (let i = 0; i < words.length; i += int(2, 6)) lines.push(indent + words.slice(i, i + 6).join(" "));
    return [`${key}: ${indicator}`, ...(lines.length > 0 ? lines : [indent])];
  }
  if (style === "multiline") {
    const words = value.split(" ");
    const lines = [`${key}: ${words.slice(0, 3).join(" ")}`];
    for (let i = 3; i < words.length; i += 4) lines.push(`  ${words.slice(i, i + 4).join(" ")}`);
    return lines;
  }
  if (style === "list") return chance(0.5) ? [`${key}:`, `  - ${value}`] : [`${key}: [${value}]`];
  if (style === "empty") return [chance(0.5) ? `${key}:` : `${key}: ""`];
  return [`${key}: ${value}`];
}

function shuffle<T>(items: T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
