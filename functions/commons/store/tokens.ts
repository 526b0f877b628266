import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { bool, map, num, optStr, str, strings } from './codec';
import { conditionally } from './errors';
import { ItemType, keys } from './keys';
import type { Item } from './query';
import { tableName } from './table';
import type { TokenRecord } from '#domain/entities';

/** An API token as stored: everything but the token itself, of which only a SHA-256 is kept. */

function decodeToken(item: Item): TokenRecord & { hash: string } {
  const owner = map(item, 'owner');
  const expires = optStr(item, 'expires_at');
  const limit = item.rate_limit === undefined ? undefined : map(item, 'rate_limit');
  return {
    id: str(item, 'id'),
    hash: str(item, 'hash'),
    owner: { name: str(owner, 'name', item), username: str(owner, 'username', item) },
    workspaces: strings(item, 'workspaces'),
    scopes: strings(item, 'scopes'),
    created_at: str(item, 'created_at'),
    ...(expires !== undefined ? { expires_at: expires } : {}),
    revoked: bool(item, 'revoked'),
    ...(limit ? { rate_limit: { rate: num(limit, 'rate', item), burst: num(limit, 'burst', item) } } : {}),
  };
}

export async function putNewToken(record: TokenRecord, hash: string): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.token(record.id), type: ItemType.token, hash, ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** The token item with its hash (eventually consistent unless asked: a new token is usable within a second). */
export async function readToken(id: string, consistent = false): Promise<(TokenRecord & { hash: string }) | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.token(id), ConsistentRead: consistent }));
  return Item ? decodeToken(Item) : undefined;
}

/** Marks the token revoked; false when there is no such token. */
export function revokeTokenItem(id: string): Promise<boolean> {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(id),
        UpdateExpression: 'SET revoked = :true, revoked_at = :now',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':true': true, ':now': new Date().toISOString() },
      }),
    ),
  );
}

/** Sets an active token's rate limit; false when there is no such token or it is revoked. */
export function updateTokenLimits(id: string, limit: { rate: number; burst: number }): Promise<boolean> {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(id),
        UpdateExpression: 'SET rate_limit = :limit',
        ConditionExpression: 'attribute_exists(PK) AND revoked = :false',
        ExpressionAttributeValues: { ':limit': { rate: limit.rate, burst: limit.burst }, ':false': false },
      }),
    ),
  );
}

/** Every token (a Scan: only the token CLI lists tokens, never a request path). */
export async function scanTokens(): Promise<TokenRecord[]> {
  const out: TokenRecord[] = [];
  let start: Item | undefined;
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
      const { hash: _hash, ...record } = decodeToken(item);
      out.push(record);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
