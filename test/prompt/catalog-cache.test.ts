import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SkillInfo } from "../../src/access/types.js";
import { renderCatalog } from "../../src/prompt/catalog.js";
import { sharedCatalog } from "../../src/prompt/catalog-cache.js";

function skill(name: string): SkillInfo {
  return { name, description: `Does ${name} things.`, origin: "global", label: "Global skills", dir: `/skills/${name}` };
}

describe("sharedCatalog", () => {
  it("renders what renderCatalog renders, for each format and budget", () => {
    const skills = Object.freeze([skill("alpha"), skill("beta")]);
    for (const options of [{}, { format: "markdown" as const }, { format: "xml" as const, budgetChars: 120 }, { budgetChars: 5 }]) {
      assert.equal(sharedCatalog(skills, options), renderCatalog(skills, options), JSON.stringify(options));
    }
  });

  it("keeps one text per list object and options: the same list is not rendered again, a new list is", () => {
    // The list is the key by identity (registries hand out frozen lists); an unfrozen one that is
    // changed behind the cache's back shows that the second ask was answered from the cache.
    const skills = [skill("alpha")];
    const first = sharedCatalog(skills, { budgetChars: 1000 });
    skills.push(skill("beta"));
    assert.equal(sharedCatalog(skills, { budgetChars: 1000 }), first);
    assert.match(sharedCatalog(skills, { budgetChars: 1001 }), /<name>beta<\/name>/, "other options render afresh");
    assert.match(sharedCatalog([...skills], { budgetChars: 1000 }), /<name>beta<\/name>/, "another list renders afresh");
  });

  it("keeps the texts of a few option sets per list, the oldest going first", () => {
    const skills = [skill("alpha")];
    const first = sharedCatalog(skills, { budgetChars: 2000 });
    for (let budget = 2001; budget < 2009; budget++) sharedCatalog(skills, { budgetChars: budget });
    skills.push(skill("beta"));
    assert.notEqual(sharedCatalog(skills, { budgetChars: 2000 }), first, "the first option set was evicted");
  });
});
