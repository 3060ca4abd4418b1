/**
 * A few known names close to a name that was not found, so a model that misspelt a skill can
 * correct itself in one step. Only names the caller may use are ever passed in, so a
 * suggestion never reveals a skill outside the scope.
 */
export function closeNames(wanted: string, known: readonly string[], limit = 3): string[] {
  const target = wanted.toLowerCase();
  const threshold = Math.max(1, Math.floor(target.length / 3));
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of known) {
    const candidate = name.toLowerCase();
    // A containment match (`pdf` for `pdf-tools`) ranks with the closest edits.
    const contained =
      Math.min(target.length, candidate.length) >= 3 && (candidate.includes(target) || target.includes(candidate));
    const distance = editDistance(target, candidate, threshold);
    if (distance <= threshold) scored.push({ name, score: distance });
    else if (contained) scored.push({ name, score: threshold });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, limit).map((entry) => entry.name);
}

/**
 * Levenshtein distance with adjacent transpositions, by code point. Stops early once every
 * path exceeds `bound`, returning `bound + 1`, so large catalogs stay cheap.
 */
export function editDistance(a: string, b: string, bound = Number.POSITIVE_INFINITY): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > bound) return bound + 1;
  let previousPrevious: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        value = Math.min(value, previousPrevious[j - 2]! + 1);
      }
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum > bound) return bound + 1;
    previousPrevious = previous;
    previous = current;
  }
  return previous[t.length]!;
}
