import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { conditionally } from './errors';
import type { Key } from './keys';
import { tableName } from './table';

/**
 * A lease: one item held by one request (its `holder`) until it frees it or `locked_until` passes, so a
 * request that died mid-way frees it by itself. The item expires an hour after its lease: one never taken
 * again leaves nothing behind. (A workspace's send slots, a webhook's recovery.)
 */

export const epochSeconds = () => Math.floor(Date.now() / 1000);

/** Takes the lease under `key` for `holder`, unless another holds it still: whether it was taken. */
export function takeLease(key: Key, item: { type: string; workspace: string }, leaseSeconds: number, holder: string): Promise<boolean> {
  const at = epochSeconds();
  return conditionally(
    db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...key, ...item, holder, locked_until: at + leaseSeconds, ttl: at + leaseSeconds + 3600 },
        ConditionExpression: 'attribute_not_exists(PK) OR locked_until < :now',
        ExpressionAttributeValues: { ':now': at },
      }),
    ),
  );
}

/** Frees a lease `holder` took (one whose time ran out and went to another request is left to it). */
export async function freeLease(key: Key, holder: string): Promise<void> {
  await conditionally(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    ),
  );
}
