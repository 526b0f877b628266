import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { putNewToken, readToken, revokeTokenItem, scanTokens, updateTokenLimits } from '#store/tokens';
import { ValidationFailed } from './errors';
import type { FieldError } from './errors';
import { isScope, type Scope } from './scopes';
import { SLUG } from './slugs';
import { textProblem } from './text';
import type { TokenRecord } from './entities';

/**
 * API tokens: `pls_<id>_<secret>`, 256 random bits of secret. Only the SHA-256 of the whole token is
 * stored; the id (also inside the token) keys the item so the authorizer needs one GetItem.
 */
const PREFIX = 'pls_';
const TOKEN_PATTERN = /^pls_([a-z2-7]{16})_([A-Za-z0-9_-]{43})$/;

/**
 * What an Authorization header must look like before a token is even looked up: the exact shape of
 * our tokens, so a junk header (`Bearer x`, another service's token) is answered 401 by the gateway
 * without invoking the authorizer. API Gateway's identity validation expression (CDK stack, a Java
 * regular expression: this one means the same there) and the local gateway both use this one pattern.
 */
export const BEARER_HEADER = /^Bearer pls_[a-z2-7]{16}_[A-Za-z0-9_-]{43}$/;

/** A token's share of the API: requests per second, steady, and the burst a full bucket allows. */
export interface RateLimit {
  rate: number;
  burst: number;
}

/** What a token gets unless it is created with other limits (docs/operations.md, "Rate limits per token"). */
export const DEFAULT_RATE_LIMIT: RateLimit = { rate: 100, burst: 200 };
/** API Gateway's own bounds: an account's default Region rate and burst (load tests use them). */
export const MAX_RATE_LIMIT: RateLimit = { rate: 10_000, burst: 5_000 };
const { rate: MAX_RATE, burst: MAX_BURST } = MAX_RATE_LIMIT;

/**
 * The API Gateway API key value a token's requests count against (its usage plan's limits). Not a
 * secret: the API's key source is the authorizer, so no client can name a key; derived from the id,
 * so tokens made before keys existed have one too.
 */
export function usageKeyOf(tokenId: string): string {
  // Letters and digits only (24 characters): inside every rule API Gateway has for key values.
  return `plsusage${tokenId}`;
}

/** Who a valid token stands for. */
export interface Principal {
  tokenId: string;
  owner: { name: string; username: string };
  workspaces: string[];
  scopes: Scope[];
  /** The token's rate limit (set by the authorizer; handlers never need it). */
  limits?: RateLimit;
}

export interface NewToken {
  workspaces: string[];
  owner: { name: string; username: string };
  scopes: Scope[];
  expiresAt?: Date;
  limits?: RateLimit;
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A 16-character token id: each of 16 random bytes picks one of 32 letters and digits (80 bits). */
function randomTokenId(): string {
  return [...randomBytes(16)].map((b) => ID_ALPHABET[b & 31]).join('');
}

/** The longest lifetime a token may be given. */
export const MAX_TOKEN_LIFETIME_MS = 3_650 * 86_400_000;

/**
 * Everything wrong with a token about to be created, so that a mistake never becomes access:
 * at least one workspace, each a valid slug; at least one known scope; an owner with a name and a
 * username; an expiry, if any, a real date at most ten years away (the CLI also refuses one in the
 * past: a lifetime of zero is a mistake there; tests create expired tokens on purpose).
 */
function limitProblems({ rate, burst }: RateLimit): FieldError[] {
  const errors: FieldError[] = [];
  if (!(Number.isFinite(rate) && rate > 0 && rate <= MAX_RATE))
    errors.push({ field: 'rate', message: `must be a number of requests per second above 0 and at most ${MAX_RATE}` });
  if (!(Number.isInteger(burst) && burst >= 1 && burst <= MAX_BURST))
    errors.push({ field: 'burst', message: `must be a whole number of requests from 1 to ${MAX_BURST}` });
  return errors;
}

/**
 * Idempotency-Keys belong to `token:<id>`: a username spelled so (in any width or case) could be
 * mistaken for a token by anything that reads owners, so none is given out.
 */
function mistakableForKeyOwner(username: string): boolean {
  return username.normalize('NFKC').trim().toLowerCase().startsWith('token:');
}

function tokenProblems(input: NewToken, now: number): FieldError[] {
  const errors: FieldError[] = limitProblems(input.limits ?? DEFAULT_RATE_LIMIT);
  if (input.workspaces.length === 0) errors.push({ field: 'workspaces', message: 'must name at least one workspace' });
  for (const ws of input.workspaces) {
    if (!SLUG.test(ws))
      errors.push({ field: 'workspaces', message: `"${ws}" is not a workspace slug (lowercase letters, digits and hyphens)` });
  }
  if (input.scopes.length === 0) errors.push({ field: 'scopes', message: 'must grant at least one scope' });
  for (const scope of input.scopes) if (!isScope(scope)) errors.push({ field: 'scopes', message: `unknown scope "${String(scope)}"` });
  for (const [field, value] of [
    ['name', input.owner.name],
    ['username', input.owner.username],
  ] as const) {
    const problem =
      value.trim() === ''
        ? 'must not be empty'
        : (textProblem(value) ?? (value.length > 255 ? 'must have at most 255 characters' : undefined));
    if (problem) errors.push({ field, message: problem });
  }
  if (mistakableForKeyOwner(input.owner.username))
    errors.push({
      field: 'username',
      message: 'must not begin with "token:" (the spelling of a token as the owner of its Idempotency-Keys)',
    });
  if (input.expiresAt !== undefined) {
    const at = input.expiresAt.getTime();
    if (!Number.isFinite(at)) errors.push({ field: 'expires_at', message: 'must be a date' });
    else if (at - now > MAX_TOKEN_LIFETIME_MS) errors.push({ field: 'expires_at', message: 'must be at most ten years away' });
  }
  return errors;
}

/** ValidationFailed naming everything wrong with a token about to be created (the token CLI checks before it asks the database). */
export function checkNewToken(input: NewToken): void {
  const errors = tokenProblems(input, Date.now());
  if (errors.length) throw new ValidationFailed(errors);
}

/** A new token: its public id, and the whole token (`pls_<id>_<secret>`, 256 random bits of secret). */
export function newToken(): { id: string; token: string } {
  const id = randomTokenId();
  return { id, token: `${PREFIX}${id}_${randomBytes(32).toString('base64url')}` };
}

export async function createToken(input: NewToken): Promise<{ token: string; record: TokenRecord }> {
  checkNewToken(input);
  const { id, token } = newToken();
  const record: TokenRecord = {
    id,
    owner: input.owner,
    workspaces: input.workspaces,
    scopes: input.scopes,
    created_at: new Date().toISOString(),
    ...(input.expiresAt ? { expires_at: input.expiresAt.toISOString() } : {}),
    revoked: false,
    rate_limit: { ...(input.limits ?? DEFAULT_RATE_LIMIT) },
  };
  await putNewToken(record, hash(token));
  return { token, record };
}

/** The public id a bearer header's token claims (for logs), if it has a token's shape; never the secret. */
export function claimedTokenId(authorization: string): string | undefined {
  return TOKEN_PATTERN.exec(authorization.replace(/^Bearer /, ''))?.[1];
}

/** What a token stands for: its principal, or why none (a revoked token, or a wrong secret, reads as unknown). */
export type TokenCheck = { principal: Principal } | { refused: 'unknown' } | { refused: 'expired'; expiredAt: string };

/**
 * The principal a token stands for, or why it stands for none. A token made a moment ago may be missing
 * from an eventually consistent read: a miss is read again, strongly, before it is called unknown (the
 * authorizer's answer is cached per token). Expiry is told only to a token whose whole secret matched.
 */
export async function checkToken(token: string, now = new Date()): Promise<TokenCheck> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return { refused: 'unknown' };
  const stored = (await readToken(match[1]!)) ?? (await readToken(match[1]!, true));
  if (!stored) return { refused: 'unknown' };
  const expected = Buffer.from(stored.hash, 'hex');
  const actual = Buffer.from(hash(token), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { refused: 'unknown' };
  if (stored.revoked) return { refused: 'unknown' };
  if (stored.expires_at !== undefined && Date.parse(stored.expires_at) <= now.getTime())
    return { refused: 'expired', expiredAt: stored.expires_at };
  return {
    principal: {
      tokenId: stored.id,
      owner: stored.owner,
      workspaces: stored.workspaces,
      scopes: stored.scopes.filter(isScope),
      limits: stored.rate_limit ?? DEFAULT_RATE_LIMIT,
    },
  };
}

/** The principal a token stands for, or null when it is malformed, unknown, expired or revoked. */
export async function verifyToken(token: string, now = new Date()): Promise<Principal | null> {
  const checked = await checkToken(token, now);
  return 'principal' in checked ? checked.principal : null;
}

/** Refuses (422) limits out of bounds. */
export function checkLimits(limits: RateLimit): void {
  const errors = limitProblems(limits);
  if (errors.length) throw new ValidationFailed(errors);
}

/** Gives an active token other limits (422 when they are out of bounds); false when there is no such token. */
export function setTokenLimits(id: string, limits: RateLimit): Promise<boolean> {
  checkLimits(limits);
  return updateTokenLimits(id, limits);
}

/** Whether a token exists and is not revoked (one read). */
export async function isActiveToken(id: string): Promise<boolean> {
  const stored = await readToken(id);
  return stored !== undefined && !stored.revoked;
}

/** Whether a token record can still be used: neither revoked nor expired. */
export function usable(t: Pick<TokenRecord, 'revoked' | 'expires_at'>, now = new Date()): boolean {
  return !t.revoked && !(t.expires_at && Date.parse(t.expires_at) <= now.getTime());
}

/** Whether a token id names a usable token of `tokens` (an API key without one is an orphan). */
export function usableIn(tokens: Pick<TokenRecord, 'id' | 'revoked' | 'expires_at'>[]): (tokenId: string) => boolean {
  const ids = new Set(tokens.filter((t) => usable(t)).map((t) => t.id));
  return (tokenId) => ids.has(tokenId);
}

/** Whether the token can still be used, read strongly consistent: a token made a moment ago counts. */
export async function isUsableToken(id: string, now = new Date()): Promise<boolean> {
  const stored = await readToken(id, true);
  return stored !== undefined && usable(stored, now);
}

export function revokeToken(id: string): Promise<boolean> {
  return revokeTokenItem(id);
}

/** Administrative listing for the token CLI, oldest first, optionally of one workspace. */
export async function listTokens(workspace?: string): Promise<TokenRecord[]> {
  const tokens = await scanTokens();
  return tokens.filter((t) => !workspace || t.workspaces.includes(workspace)).sort((a, b) => a.created_at.localeCompare(b.created_at));
}
