import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor for bundle size and cold init: a function that only creates the DocumentClient and
 * sends one GetCommand. Any real handler needs at least this much.
 */
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export async function handler(event: { slug?: string }) {
  const { Item } = await db.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: 'WS#floor', SK: `PROJECT#${event.slug}` } }),
  );
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
}
