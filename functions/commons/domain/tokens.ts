import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { putNewToken, readToken, revokeTokenItem, scanTokens, type TokenRecord } from '#store/tokens';
import { isScope, type Scope } from './scopes';

/**
 * API tokens: `pls_<id>_<secret>`, 256 random bits of secret. Only the SHA-256 of the whole token is
 * stored; the id (also inside the token) keys the item so the authorizer needs one GetItem.
 */
const PREFIX = 'pls_';
const TOKEN_PATTERN = /^pls_([a-z2-7]{16})_([A-Za-z0-9_-]{43})$/;

/**
 * What an Authorization header must look like before a token is even looked up. API Gateway's
 * identity validation expression (CDK stack) and the local gateway both use this one pattern.
 */
export const BEARER_HEADER = /^Bearer [-0-9A-Za-z._~+/]+=*$/;

/** Who a valid token stands for. */
export interface Principal {
  tokenId: string;
  owner: { name: string; username: string };
  workspaces: string[];
  scopes: Scope[];
}

export type { TokenRecord };

export interface NewToken {
  workspaces: string[];
  owner: { name: string; username: string };
  scopes: Scope[];
  expiresAt?: Date;
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A 16-character token id: each of 16 random bytes picks one of 32 letters and digits (80 bits). */
function randomTokenId(): string {
  return [...randomBytes(16)].map((b) => ID_ALPHABET[b & 31]).join('');
}

export async function createToken(input: NewToken): Promise<{ token: string; record: TokenRecord }> {
  const id = randomTokenId();
  const token = `${PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  const record: TokenRecord = {
    id,
    owner: input.owner,
    workspaces: input.workspaces,
    scopes: input.scopes,
    created_at: new Date().toISOString(),
    ...(input.expiresAt ? { expires_at: input.expiresAt.toISOString() } : {}),
    revoked: false,
  };
  await putNewToken(record, hash(token));
  return { token, record };
}

/** The principal a token stands for, or null when it is malformed, unknown, expired or revoked. */
export async function verifyToken(token: string, now = new Date()): Promise<Principal | null> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return null;
  const stored = await readToken(match[1]!);
  if (!stored) return null;
  const expected = Buffer.from(stored.hash, 'hex');
  const actual = Buffer.from(hash(token), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  if (stored.revoked) return null;
  if (stored.expires_at !== undefined && Date.parse(stored.expires_at) <= now.getTime()) return null;
  return { tokenId: stored.id, owner: stored.owner, workspaces: stored.workspaces, scopes: stored.scopes.filter(isScope) };
}

export function revokeToken(id: string): Promise<boolean> {
  return revokeTokenItem(id);
}

/** Administrative listing for the token CLI, oldest first, optionally of one workspace. */
export async function listTokens(workspace?: string): Promise<TokenRecord[]> {
  const tokens = await scanTokens();
  return tokens.filter((t) => !workspace || t.workspaces.includes(workspace)).sort((a, b) => a.created_at.localeCompare(b.created_at));
}
