/**
 * "Did you mean": the names a mistyped one was probably meant to be, for every tool's argument errors
 * (an option, a command, a function, an event type, a scope). Case is ignored; a name is a candidate
 * when at most a third of the typed one's length in edits away (one edit at least): an insertion, a
 * deletion, a replacement or two neighbours swapped.
 */

/** Edits between `a` and `b` (Levenshtein's, with a swap of two neighbours counting as one). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The names nearest to `typed` (all those equally near, at most three), if any is near enough to be a typo. */
export function closestNames(typed: string, names: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(typed.length / 3));
  const scored = names.map((name) => ({ name, d: editDistance(typed.toLowerCase(), name.toLowerCase()) }));
  const best = Math.min(...scored.map((s) => s.d));
  if (!(best <= limit) || best >= typed.length) return [];
  return scored
    .filter((s) => s.d === best && s.d < s.name.length)
    .map((s) => s.name)
    .slice(0, 3);
}

/** `did you mean X?` (or `X or Y?`), each name as `show` spells it, or undefined when none is near. */
export function didYouMean(typed: string, names: readonly string[], show = (name: string) => name): string | undefined {
  const near = closestNames(typed, names).map(show);
  if (!near.length) return undefined;
  return `did you mean ${near.length > 1 ? `${near.slice(0, -1).join(', ')} or ${near.at(-1)}` : near[0]}?`;
}
