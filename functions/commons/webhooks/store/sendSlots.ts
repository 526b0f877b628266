import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { conditionally } from '#store/errors';
import { ItemType, keys } from '#store/keys';
import { tableName } from '#store/table';

/**
 * A workspace's slots for outbound calls made on request (pings, redeliveries): one item per slot,
 * held by one request until it frees it or its lease runs out (a request that died mid-way frees its
 * slot by itself). They bound how many of the API's functions one workspace's endpoints can hold at once.
 */

const now = () => Math.floor(Date.now() / 1000);

/** Takes a free slot of the `slots` the workspace has, for `holder`; undefined when every one is held. */
export async function takeSendSlot(ws: string, slots: number, leaseSeconds: number, holder: string): Promise<number | undefined> {
  const at = now();
  for (let slot = 0; slot < slots; slot++) {
    const taken = await conditionally(
      db.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.sendSlot(ws, slot),
            type: ItemType.sendSlot,
            workspace: ws,
            holder,
            locked_until: at + leaseSeconds,
            // Gone for good a while after the lease: a slot never used again leaves nothing behind.
            ttl: at + leaseSeconds + 3600,
          },
          ConditionExpression: 'attribute_not_exists(PK) OR locked_until < :now',
          ExpressionAttributeValues: { ':now': at },
        }),
      ),
    );
    if (taken) return slot;
  }
  return undefined;
}

/** Frees a slot `holder` took (a slot whose lease ran out and went to another request is left to it). */
export async function freeSendSlot(ws: string, slot: number, holder: string): Promise<void> {
  await conditionally(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.sendSlot(ws, slot),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    ),
  );
}
