import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { epochSeconds, freeLease, takeLease } from '#store/leases';
import { tableName } from '#store/table';

/**
 * A webhook's recovery lease (store/leases.ts): one recovery of a webhook at a time. It lives in the
 * webhook's deliveries' partition, which a recovery reads anyway.
 */

/** Takes the webhook's lease for `holder`; when another request holds it, the epoch second its lease ends. */
export async function takeRecoveryLease(
  ws: string,
  id: string,
  leaseSeconds: number,
  holder: string,
): Promise<{ taken: true } | { taken: false; until: number }> {
  const key = keys.recoveryLease(ws, id);
  if (await takeLease(key, { type: ItemType.recoveryLease, workspace: ws }, leaseSeconds, holder)) return { taken: true };
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return { taken: false, until: Number(Item?.locked_until ?? epochSeconds() + 1) };
}

/** Frees the lease `holder` took (one whose lease ran out and went to another request is left to it). */
export function freeRecoveryLease(ws: string, id: string, holder: string): Promise<void> {
  return freeLease(keys.recoveryLease(ws, id), holder);
}
