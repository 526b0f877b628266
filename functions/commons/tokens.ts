import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { ItemType, keys } from './keys';
import type { Principal } from './principal';
import type { Scope } from './scopes';
import { tableName } from './table';

/**
 * API tokens: `pls_<id>_<secret>`, 256 random bits of secret. Only the SHA-256 of the whole token is
 * stored; the id (also inside the token) keys the item so the authorizer needs one GetItem.
 */
const PREFIX = 'pls_';
const TOKEN_PATTERN = /^pls_([a-z2-7]{16})_([A-Za-z0-9_-]{43})$/;

export interface TokenRecord {
  id: string;
  owner: { name: string; username: string };
  workspaces: string[];
  scopes: Scope[];
  created_at: string;
  expires_at?: string;
  revoked: boolean;
}

export interface NewToken {
  workspaces: string[];
  owner: { name: string; username: string };
  scopes: Scope[];
  expiresAt?: Date;
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return [...bytes].map((b) => alphabet[b & 31]).join('');
}

export async function createToken(input: NewToken): Promise<{ token: string; record: TokenRecord }> {
  const id = base32(randomBytes(16));
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
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.token(id), type: ItemType.token, hash: hash(token), ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return { token, record };
}

/** The principal a token stands for, or null when it is malformed, unknown, expired or revoked. */
export async function verifyToken(token: string, now = new Date()): Promise<Principal | null> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return null;
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.token(match[1]!) }));
  if (!Item || typeof Item.hash !== 'string') return null;
  const expected = Buffer.from(Item.hash, 'hex');
  const actual = Buffer.from(hash(token), 'hex');
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  if (Item.revoked === true) return null;
  if (typeof Item.expires_at === 'string' && Date.parse(Item.expires_at) <= now.getTime()) return null;
  return {
    tokenId: Item.id as string,
    owner: Item.owner as Principal['owner'],
    workspaces: Item.workspaces as string[],
    scopes: Item.scopes as Scope[],
  };
}

export async function revokeToken(id: string): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(id),
        UpdateExpression: 'SET revoked = :true, revoked_at = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':true': true, ':now': new Date().toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Administrative listing for the token CLI. A Scan is acceptable here: it is not a request path. */
export async function listTokens(workspace?: string): Promise<TokenRecord[]> {
  const out: TokenRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#type = :token',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':token': ItemType.token },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const { PK: _pk, SK: _sk, type: _type, hash: _hash, ...record } = item;
      if (!workspace || (record.workspaces as string[]).includes(workspace)) out.push(record as TokenRecord);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
}
