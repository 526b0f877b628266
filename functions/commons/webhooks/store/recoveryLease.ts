import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { conditionally } from '#store/errors';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';

/**
 * A webhook's recovery lease: one recovery of a webhook at a time, held by one request until it frees it
 * or its lease runs out (a request that died mid-way frees it by itself). It lives in the webhook's
 * deliveries' partition, which a recovery reads anyway.
 */

const now = () => Math.floor(Date.now() / 1000);

/** Takes the webhook's lease for `holder`; when another request holds it, the epoch second its lease ends. */
export async function takeRecoveryLease(
  ws: string,
  id: string,
  leaseSeconds: number,
  holder: string,
): Promise<{ taken: true } | { taken: false; until: number }> {
  const at = now();
  const taken = await conditionally(
    db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.recoveryLease(ws, id),
          type: ItemType.recoveryLease,
          workspace: ws,
          holder,
          locked_until: at + leaseSeconds,
          // Gone a while after the lease: a webhook never recovered again keeps nothing of it.
          ttl: at + leaseSeconds + 3600,
        },
        ConditionExpression: 'attribute_not_exists(PK) OR locked_until < :now',
        ExpressionAttributeValues: { ':now': at },
      }),
    ),
  );
  if (taken) return { taken: true };
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.recoveryLease(ws, id), ConsistentRead: true }));
  return { taken: false, until: Number(Item?.locked_until ?? at + 1) };
}

/** Frees the lease `holder` took (one whose lease ran out and went to another request is left to it). */
export async function freeRecoveryLease(ws: string, id: string, holder: string): Promise<void> {
  await conditionally(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.recoveryLease(ws, id),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    ),
  );
}
