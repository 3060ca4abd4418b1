import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { SkillInfo } from "../../src/access/types.js";
import { MIN_DESCRIPTION_CHARS, renderCatalog } from "../../src/prompt/catalog.js";
import type { Origin } from "../../src/registry/types.js";
import { renderCatalogByWholeRenders } from "./catalog-reference.js";

const LABELS: Record<Origin, string> = {
  agent: "Agent skills",
  project: "Project skills",
  global: "Global skills",
  bundled: "Bundled skills",
};

function skill(name: string, origin: Origin, description = `Does ${name} things.`): SkillInfo {
  return { name, description, origin, label: LABELS[origin], dir: `/skills/${name}` };
}

function length(text: string): number {
  return [...text].length;
}

const MIXED = [
  skill("zeta", "bundled"),
  skill("beta", "global"),
  skill("alpha", "global"),
  skill("mine", "agent"),
  skill("proj", "project"),
];

describe("renderCatalog", () => {
  it("shows controls, bidi overrides, tag and zero-width characters in descriptions as escapes, and drops other default-ignorables: NUL or ESC would end the XML", () => {
    const hostile = skill("evil", "global", "red \u001b[31mRED\u001b[0m \u202eevil\u202c zw\u200bx nul\u0000 bell\u0007 joiner\u200d kept\u{e0069}\u{e0067}\u061c\u00ad\u2061\u180e\ufe0f\u034f");
    for (const format of ["xml", "markdown"] as const) {
      const text = renderCatalog([hostile], { format });
      // Tag characters spell words only a model sees; the rest are bidi marks and other default-ignorables.
      assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202a-\u202e\u{e0000}-\u{e007f}\u061c\u00ad\u2061\u180e\ufe0f\u034f]/u, format);
      // Each invisible character is written out where it stood (a tag character spells a word only
      // a model sees; hiding that it was there would hide the attack); the soft hyphen, the
      // variation selector and the grapheme joiner show nothing and change no word: dropped.
      const shown = String.raw`red \u{1b}[31mRED\u{1b}[0m \u{202e}evil\u{202c} zw\u{200b}x nul\u{0} bell\u{7} joiner\u{200d} kept\u{e0069}\u{e0067}\u{61c}\u{2061}\u{180e}`;
      assert.ok(text.includes(format === "xml" ? shown : markdownEscaped(shown)), text);
    }
  });

  it("renders nothing at all for no skills", () => {
    assert.equal(renderCatalog([], { format: "xml" }), "");
    assert.equal(renderCatalog([], { format: "markdown", budgetChars: 10 }), "");
  });

  it("groups by origin in precedence order, then by name, as XML", () => {
    assert.equal(
      renderCatalog(MIXED, { format: "xml" }),
      [
        "<available_skills>",
        '<skill_group label="Agent skills">',
        "<skill><name>mine</name><description>Does mine things.</description></skill>",
        "</skill_group>",
        '<skill_group label="Project skills">',
        "<skill><name>proj</name><description>Does proj things.</description></skill>",
        "</skill_group>",
        '<skill_group label="Global skills">',
        "<skill><name>alpha</name><description>Does alpha things.</description></skill>",
        "<skill><name>beta</name><description>Does beta things.</description></skill>",
        "</skill_group>",
        '<skill_group label="Bundled skills">',
        "<skill><name>zeta</name><description>Does zeta things.</description></skill>",
        "</skill_group>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("renders Markdown with the same order", () => {
    assert.equal(
      renderCatalog([skill("b", "global"), skill("a", "agent")], { format: "markdown" }),
      "## Available skills\n\n### Agent skills\n- **a**: Does a things.\n\n### Global skills\n- **b**: Does b things.",
    );
  });

  it("escapes everything and keeps each skill on one line", () => {
    const hostile: SkillInfo = {
      name: "x<y>",
      description: 'Use "quotes" & <tags>\nand it\'s fine',
      origin: "global",
      label: 'Team "A" & <B>',
      dir: "/x",
    };
    const xml = renderCatalog([hostile], { format: "xml" });
    assert.ok(xml.includes('<skill_group label="Team &quot;A&quot; &amp; &lt;B&gt;">'));
    assert.ok(
      xml.includes("<skill><name>x&lt;y&gt;</name><description>Use &quot;quotes&quot; &amp; &lt;tags&gt; and it&#x27;s fine</description></skill>"),
    );
    const markdown = renderCatalog([hostile], { format: "markdown" });
    assert.ok(markdown.includes("- **x\\<y\\>**: Use \"quotes\" & \\<tags\\> and it's fine"));
  });

  it("is deterministic whatever the input order", () => {
    const reversed = [...MIXED].reverse();
    for (const format of ["xml", "markdown"] as const) {
      assert.equal(renderCatalog(reversed, { format }), renderCatalog(MIXED, { format }));
    }
  });
});

describe("renderCatalog budgets", () => {
  const long = (name: string, origin: Origin) => skill(name, origin, `${name} `.repeat(60).trim());

  it("shortens long descriptions evenly first, leaving short ones alone", () => {
    const skills = [long("aa", "global"), long("bb", "global"), skill("cc", "global", "Short.")];
    const full = renderCatalog(skills, { format: "xml" });
    const budget = length(full) - 200;
    const text = renderCatalog(skills, { format: "xml", budgetChars: budget });
    assert.ok(length(text) <= budget);
    const descriptions = [...text.matchAll(/<description>(.*?)<\/description>/g)].map((match) => match[1] ?? "");
    assert.equal(descriptions.length, 3);
    assert.equal(descriptions[2], "Short.");
    assert.ok(descriptions[0]?.endsWith("…") && descriptions[1]?.endsWith("…"));
    assert.ok(Math.abs(length(descriptions[0] ?? "") - length(descriptions[1] ?? "")) <= 1);
    assert.doesNotMatch(text, /omitted/);
    // The budget is used, not wasted: one more character per description would not fit.
    assert.ok(length(text) > budget - 10);
  });

  it("then drops skills from the lowest-precedence origin and names them", () => {
    const skills = [long("mine", "agent"), long("proj", "project"), long("glob", "global"), long("bund", "bundled")];
    // Room for three skills at the shortest description and the closing note, not for a fourth.
    const atFloor = skills.slice(0, 3).map((entry) => ({ ...entry, description: entry.description.slice(0, MIN_DESCRIPTION_CHARS) }));
    const budget = length(renderCatalog(atFloor, { format: "xml" })) + 60;
    const text = renderCatalog(skills, { format: "xml", budgetChars: budget });
    assert.ok(length(text) <= budget, `${length(text)} > ${budget}`);
    assert.match(text, /<name>mine<\/name>/);
    assert.doesNotMatch(text, /<name>bund<\/name>/);
    assert.match(text, /<skills_omitted count="\d">(.*, )?bund<\/skills_omitted>\n<\/available_skills>$/);
    for (const match of text.matchAll(/<description>(.*?)<\/description>/g)) {
      assert.ok(length(match[1] ?? "") >= MIN_DESCRIPTION_CHARS);
    }
  });

  it("says only how many were left out when the names do not fit, and gives up on an absurd budget", () => {
    const skills = Array.from({ length: 40 }, (_, index) => long(`skill-with-a-long-name-${index}`, "global"));
    const text = renderCatalog(skills, { format: "markdown", budgetChars: 200 });
    assert.ok(length(text) <= 200);
    assert.match(text, /\d+ more skills left out to fit the catalog budget\.$/);
    assert.equal(renderCatalog(skills, { format: "xml", budgetChars: 5 }), "");
  });

  it("refuses a budget that is not a number of characters", () => {
    assert.throws(() => renderCatalog(MIXED, { budgetChars: -1 }), RangeError);
    assert.throws(() => renderCatalog(MIXED, { budgetChars: Number.NaN }), RangeError);
  });

  it("never exceeds the budget and accounts for every skill", () => {
    const origin = fc.constantFrom<Origin>("agent", "project", "global", "bundled");
    const skills = fc.uniqueArray(
      fc.record({
        name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
        description: fc.string({ minLength: 1, maxLength: 300, unit: "grapheme" }),
        origin,
      }),
      { selector: (entry) => entry.name, minLength: 1, maxLength: 25 },
    );
    fc.assert(
      fc.property(skills, fc.integer({ min: 0, max: 6000 }), fc.constantFrom("xml" as const, "markdown" as const), (entries, budget, format) => {
        const infos = entries.map((entry) => skill(entry.name, entry.origin, entry.description));
        const text = renderCatalog(infos, { format, budgetChars: budget });
        assert.ok(length(text) <= budget);
        if (text === "") return;
        const shown = format === "xml" ? [...text.matchAll(/<name>/g)].length : [...text.matchAll(/^- \*\*/gm)].length;
        const note = format === "xml" ? /<skills_omitted count="(\d+)"/.exec(text) : /\n(\d+) more skills? left out/.exec(text);
        assert.equal(shown + Number(note?.[1] ?? 0), infos.length);
      }),
      { numRuns: 150 },
    );
  });

  it("fits a budget by arithmetic to exactly the catalog that rendering and measuring every cut chose", () => {
    // The renderer no longer renders trial cuts; this pins it to the one that did, byte for byte,
    // on text that escaping lengthens, characters outside the BMP, white space a cut may end on,
    // several groups, and budgets from nothing to more than enough.
    const origin = fc.constantFrom<Origin>("agent", "project", "global", "bundled");
    const piece = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom("&", "<", ">", '"', "'", "\\", "`", "*", "_", "[", "]", "#", "|", " ", "  ", "\u00a0", "\t", "\n", "\u{1F600}", "\u{10000}x", "\u200b", "…", "a & b"),
      fc.string({ maxLength: 20, unit: "grapheme" }),
    );
    const words = fc.array(fc.stringMatching(/^[a-z]{1,9}$/), { minLength: 1, maxLength: 40 }).map((parts) => parts.join(" "));
    const description = fc.oneof(words, fc.array(piece, { minLength: 1, maxLength: 12 }).map((parts) => parts.join("")));
    const skills = fc.uniqueArray(
      fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9&<_*-]{0,12}$/), description, origin, label: fc.constantFrom("", "A & B", "Global skills", "Ünï <x>") }),
      { selector: (entry) => entry.name, minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(skills, fc.nat({ max: 3000 }), fc.constantFrom("xml" as const, "markdown" as const), (entries, slack, format) => {
        const infos = entries.map((entry) => ({ ...skill(entry.name, entry.origin, entry.description), label: entry.label }));
        const full = length(renderCatalogByWholeRenders(infos, { format }));
        for (const budget of [slack, Math.max(0, full - slack), full, full - 1, Math.floor(full / 2)]) {
          if (budget < 0) continue;
          assert.equal(renderCatalog(infos, { format, budgetChars: budget }), renderCatalogByWholeRenders(infos, { format, budgetChars: budget }), `budget ${budget}`);
        }
        assert.equal(renderCatalog(infos, { format }), renderCatalogByWholeRenders(infos, { format }));
      }),
      { numRuns: 250 },
    );
  });
});

/** The catalog's Markdown escaping, written again so the test says what the text must read. */
function markdownEscaped(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (char) => `\\${char}`);
}
