import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { keys } from '#store/keys';
import { tableName } from '#store/table';

/** Every item of a webhook's deliveries (each delivery, payload and attempt), from all of its shards, in key order. */
export async function deliveryItems(ws: string, webhookId: string): Promise<{ Items: Record<string, any>[] }> {
  const shards = await Promise.all(
    keys.webhookDeliveryShards(ws, webhookId).map(async (pk) => {
      const { Items = [] } = await db.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      );
      return Items;
    }),
  );
  return { Items: shards.flat().sort((a, b) => (a.SK < b.SK ? -1 : a.SK > b.SK ? 1 : 0)) };
}
