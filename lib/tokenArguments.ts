import { isScope, SCOPES } from '#domain/scopes';
import { MAX_TOKEN_LIFETIME_MS } from '#domain/tokens';
import { didYouMean } from '#lib/didYouMean';

/**
 * What `npm run token`'s values mean (bin/token.ts): each given value is read, and a mistake in one is
 * thrown as an ArgumentMistake naming it, before what was left out is looked at. Nothing here reads
 * or writes the database.
 */
export class ArgumentMistake extends Error {}

const mistake = (message: string): never => {
  throw new ArgumentMistake(message);
};

interface Given {
  workspace?: string | undefined;
  name?: string | undefined;
  username?: string | undefined;
  scopes?: string | undefined;
  'all-scopes'?: boolean | undefined;
  'expires-in'?: string | undefined;
  'no-expiry'?: boolean | undefined;
  rate?: string | undefined;
  burst?: string | undefined;
}

/** `30d`, `12h` or `90m`: a positive whole number of days, hours or minutes, at most ten years. */
function duration(text: string): number {
  const m = /^(\d{1,7})([dhm])$/.exec(text) ?? mistake(`--expires-in must look like 30d, 12h or 90m, not "${text}"`);
  const ms = Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
  if (ms <= 0) mistake(`--expires-in must be more than zero, not "${text}" (--no-expiry for a token that does not expire)`);
  if (ms > MAX_TOKEN_LIFETIME_MS) mistake(`--expires-in must be at most 3650d, not "${text}"`);
  return ms;
}

/** A comma-separated list: every entry trimmed and present (`a,,b` and `""` are mistakes, not lists). */
function commaList(option: string, text: string): string[] {
  const entries = text.split(',').map((e) => e.trim());
  if (entries.some((e) => e === '')) mistake(`--${option} has an empty entry: "${text}"`);
  return entries;
}

/** A plain decimal number as typed (`1e3`, `0x10`, `Infinity` and empty text are mistakes). */
function plainNumber(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}(\.\d{1,3})?$/.test(text)) mistake(`--${option} must be a number like 100 or 2.5, not "${text}"`);
  return Number(text);
}

/** The values given, read; for `create`, the choices of scopes and lifetime must both have been made. */
export function tokenArguments(command: string, given: Given) {
  if (given.scopes !== undefined && given['all-scopes']) mistake('--scopes and --all-scopes: give one of them');
  if (given['expires-in'] !== undefined && given['no-expiry']) mistake('--expires-in and --no-expiry: give one of them');
  // Given but empty is a mistake (an unset variable), never "all scopes".
  const scopes = given.scopes === undefined ? [...SCOPES] : commaList('scopes', given.scopes);
  const unknown = scopes.filter((s) => !isScope(s));
  const near = unknown.length === 1 ? didYouMean(unknown[0]!, SCOPES) : undefined;
  if (unknown.length) mistake(`unknown scopes: ${unknown.join(', ')} (${near ?? `known: ${SCOPES.join(', ')}`})`);
  const read = {
    scopes: scopes.filter(isScope),
    workspaces: given.workspace === undefined ? [] : commaList('workspace', given.workspace),
    expiresIn: given['expires-in'] === undefined ? undefined : duration(given['expires-in']),
    rate: plainNumber('rate', given.rate),
    burst: plainNumber('burst', given.burst),
  };
  if (command === 'create') {
    // A token's reach and lifetime are the caller's choice, never a default the tool guesses.
    const unchosen = [
      given.scopes === undefined && !given['all-scopes'] ? 'its scopes (--scopes projects:read,labels:read, or --all-scopes)' : undefined,
      given['expires-in'] === undefined && !given['no-expiry'] ? 'its lifetime (--expires-in 30d, or --no-expiry)' : undefined,
    ].filter(Boolean);
    if (unchosen.length)
      mistake(
        `create needs you to choose ${unchosen.join(' and ')}; for example: npm run token -- create --workspace ${given.workspace} --name ${JSON.stringify(given.name)} --username ${given.username} --scopes projects:read,labels:read --expires-in 30d`,
      );
  }
  return read;
}
