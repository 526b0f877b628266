import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import type { Item } from '#store/query';
import { isSealed, secretsAtRest, storedText, type Sealed } from '#store/sealing';
import { tableName } from '#store/table';
import { decodeWebhook } from '#store/webhookItem';
import { secretContext } from '#webhooks/subscriptions';

/** Webhook secrets kept in clear, from before they were sealed (store/sealing.ts): `check:table` names them, `rekey` seals them. */

/** A webhook whose secret, or one of those still signing beside it, is kept in clear. */
export const holdsClearSecret = (i: Item): boolean =>
  i.type === ItemType.webhook &&
  ([i.secret, ...((i.previous_secrets as Item[] | undefined) ?? []).map((p) => p.secret)].some((s) => !isSealed(String(s))) ||
    typeof i.previous_secret === 'string');

/** Seals the webhook's secrets, conditional on the secret read (a rotation meanwhile wins): false when it lost. */
export async function sealSecrets(item: Item): Promise<boolean> {
  const webhook = decodeWebhook(item);
  const box = secretsAtRest();
  const seal = async (s: Sealed) => (isSealed(s) ? s : box.seal(storedText(s), secretContext(webhook)));
  const previous = await Promise.all((webhook.previous_secrets ?? []).map(async (p) => ({ ...p, secret: await seal(p.secret) })));
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(webhook.workspace, webhook.id),
        UpdateExpression: 'SET secret = :sealed, previous_secrets = :previous REMOVE previous_secret, previous_secret_expires_at',
        ConditionExpression: 'secret = :read',
        ExpressionAttributeValues: { ':sealed': await seal(webhook.secret), ':previous': previous, ':read': webhook.secret },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
