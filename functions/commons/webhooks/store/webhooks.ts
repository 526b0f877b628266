import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PreviousSecret, WebhookRecord } from '../entities';
import { db } from '#store/client';
import { conditionally, TransactionCancelled, unlessConditionFails } from '#store/errors';
import { ItemType, keys } from '#store/keys';
import { queryAll } from '#store/query';
import type { Sealed } from '#store/sealing';
import { decodeWebhook, setAndRemove, webhooksRange } from './webhookItem';
import { tableName } from '#store/table';
import { transact, tx, type TransactItem } from '#store/transactions';
import { countedKinds, type CountTries } from '#store/workspaceCounts';

/** Every read and write of webhook items (in their workspace's collection); their deliveries: webhookDeliveries.ts. */

export async function readWebhooks(ws: string): Promise<WebhookRecord[]> {
  return (await queryAll(webhooksRange(ws))).map(decodeWebhook);
}

export async function readWebhook(ws: string, id: string): Promise<WebhookRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: keys.webhook(ws, id), ConsistentRead: true }));
  return Item ? decodeWebhook(Item) : undefined;
}

/** A new webhook and its place in the workspace's count (workspaceCounts.ts), in one transaction (parts `webhook`, `count`). */
export async function putNewWebhook(record: WebhookRecord, count: TransactItem): Promise<void> {
  await transact([
    [
      'webhook',
      tx.put(
        { ...keys.webhook(record.workspace, record.id), type: ItemType.webhook, ...record },
        { condition: 'attribute_not_exists(PK)' },
      ),
    ],
    ['count', count],
  ]);
}

/**
 * A user's change: only the attributes it changes are written, and only while the webhook is still
 * at the revision read (so a concurrent change is never written over: the caller reads again). The
 * new record, or undefined when it changed or went meanwhile.
 */
export function rewriteWebhook(
  read: WebhookRecord,
  set: Partial<WebhookRecord>,
  remove: readonly (keyof WebhookRecord)[],
): Promise<WebhookRecord | undefined> {
  const { expression, names, values } = setAndRemove({ ...set, rev: read.rev + 1 }, remove);
  return unlessConditionFails(async () => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(read.workspace, read.id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK) AND #rev = :readRev',
        ExpressionAttributeNames: { ...names, '#rev': 'rev' },
        ExpressionAttributeValues: { ...values, ':readRev': read.rev },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeWebhook(Attributes) : undefined;
  });
}

/**
 * Deletes the webhook if it is still the revision read, counting it out: `deleted`, `changed` when it
 * changed or went meanwhile, or `again` when only the count moved under it (a concurrent create or
 * delete in the workspace) or was not as `count` guessed: the caller reads again.
 */
export async function deleteWebhookItem(read: WebhookRecord, count: CountTries): Promise<'deleted' | 'changed' | 'again'> {
  const countOut = await count.out(countedKinds.webhooks, read.workspace);
  const condition = { condition: 'attribute_exists(PK) AND #rev = :readRev', names: { '#rev': 'rev' }, values: { ':readRev': read.rev } };
  try {
    await transact([
      ['webhook', tx.delete(keys.webhook(read.workspace, read.id), condition)],
      ['count', countOut],
    ]);
    return 'deleted';
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    const countMissed = count.missed(error);
    if (error.conditionFailed('webhook')) return 'changed';
    if (error.conflicted || countMissed) return 'again';
    throw error;
  }
}

/**
 * A new secret and the list of those still signing beside it, written only while the webhook's secret is
 * still the one read (two rotations at once: one reads again, and keeps the secret the other made);
 * the single previous secret of before the list goes. False when it changed or went meanwhile.
 */
export function replaceWebhookSecret(read: WebhookRecord, secret: Sealed, previous: PreviousSecret[], now: string): Promise<boolean> {
  return conditionally(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(read.workspace, read.id),
        UpdateExpression:
          'SET secret = :secret, previous_secrets = :previous, updated_at = :now REMOVE previous_secret, previous_secret_expires_at',
        ConditionExpression: 'attribute_exists(PK) AND secret = :read',
        ExpressionAttributeValues: { ':secret': secret, ':previous': previous, ':now': now, ':read': read.secret },
      }),
    ),
  );
}
