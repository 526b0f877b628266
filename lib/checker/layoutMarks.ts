import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { CLOCK_SKEW_MS } from '#store/deployWindow';
import { TransactionCancelled } from '#store/errors';
import type { Key } from '#store/keys';
import { tableName } from '#store/table';
import { transact } from '#store/transactions';

/**
 * What rekey's moves share: the mark on a move's LAYOUT item that the move is done (`field`, now: functions go by the new
 * layout alone within a relook), and a move's transaction whose cancellation is named as a conflict (run again).
 */
export async function markLayoutDone(key: Key, field: string): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${field} = :now`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': new Date(Date.now()).toISOString() },
    }),
  );
}

/**
 * Whether a move may run now, from a scan taken at `scannedAt`: undefined when it may, else what it waits for (rekey
 * says it). It waits `skews` clocks' skews past `spreadAt`, when this version's functions took up the new layout
 * (the deploy's window after this version's first write of `what`, which has not begun where it is not finite).
 */
export function moveWait(spreadAt: number, what: string, scannedAt: number, skews = 1): string | undefined {
  if (!Number.isFinite(spreadAt)) return `15 minutes after this version's first ${what} write`;
  const after = spreadAt + skews * CLOCK_SKEW_MS;
  return scannedAt < after ? new Date(after).toISOString() : undefined;
}

/** Runs a move's transaction; one cancelled (what it read changed meanwhile) is named in `conflicts`: `<what>: <why>; run again`. */
export async function moveOrName(conflicts: string[], what: string, why: string, parts: Parameters<typeof transact>[0]): Promise<void> {
  await transact(parts).catch((error: unknown) => {
    if (!(error instanceof TransactionCancelled)) throw error;
    conflicts.push(`${what}: ${why}; run again`);
  });
}
