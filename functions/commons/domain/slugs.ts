import { AGAIN, RETRY, withRetries } from '#store/retry';

const MAX_SLUG_LENGTH = 64;

/** A slug (workspace, project or label): lowercase letters, digits and inner hyphens, at most 64 characters. */
export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * Lowercase ASCII slug: diacritics folded, every other run of characters one hyphen, trimmed,
 * at most 64 characters; `fallback` when nothing is left (an all-emoji name, say).
 */
export function slugify(text: string, fallback: string): string {
  const folded = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[œŒ]/g, 'oe')
    .replace(/[łŁ]/g, 'l')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase();
  const slug = trimHyphens(folded.replace(/[^a-z0-9]+/g, '-')).slice(0, MAX_SLUG_LENGTH);
  return trimHyphens(slug) || fallback;
}

/** `base`, then `base-2`, `base-3`, ...; the base is shortened so the result stays within 64 characters. */
export function slugWithSuffix(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return `${trimHyphens(base.slice(0, MAX_SLUG_LENGTH - suffix.length))}${suffix}`;
}

/**
 * A free suffix number for `base` given the `taken` slugs (1 means the base itself): the smallest
 * one, or, once a request has lost a race for it (`contention` > 0), one of the first 2^contention
 * free ones at random, so that many concurrent creates of one name spread out instead of all
 * colliding on the same next slug again.
 */
export function freeSuffix(base: string, taken: Iterable<string>, contention = 0, random = Math.random): number {
  const used = new Set(taken);
  let skip = contention > 0 ? Math.floor(random() * 2 ** Math.min(contention, 6)) : 0;
  for (let n = 1; ; n++) {
    if (used.has(slugWithSuffix(base, n))) continue;
    if (skip-- === 0) return n;
  }
}

/**
 * The prefix every slug derived from `base` starts with (for a Query that lists the taken ones):
 * the base as cut for the longest suffix a claim can reach (`-99999`), so `-10` and beyond are
 * seen as taken too.
 */
export function slugFamilyPrefix(base: string): string {
  return trimHyphens(base.slice(0, MAX_SLUG_LENGTH - '-99999'.length));
}

function trimHyphens(s: string): string {
  return s.replace(/^-+|-+$/g, '');
}

/**
 * Claims the first free slug derived from `base` (projects and labels): `claim` writes under a slug,
 * conditional on it being free, and answers undefined when it was taken. After a collision the
 * taken slugs of the family are read once per round and the next free suffix tried, spread out
 * under contention (see freeSuffix); RETRY.claims bounds the rounds.
 */
export async function claimSlug<T>(
  base: string,
  takenSlugs: (familyPrefix: string) => Promise<string[]>,
  claim: (slug: string) => Promise<T | undefined>,
  what: string,
): Promise<T> {
  let slug = base;
  return withRetries(RETRY.claims, `Too many concurrent creates of ${what}; retry.`, async (round) => {
    if (round > 0) slug = slugWithSuffix(base, freeSuffix(base, await takenSlugs(slugFamilyPrefix(base)), round - 1));
    return (await claim(slug)) ?? AGAIN;
  });
}
