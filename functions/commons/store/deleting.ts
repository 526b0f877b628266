import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { isConditionFailure } from './errors';
import type { Key } from './keys';
import type { Item } from './query';
import { tableName } from './table';

/** Marks a project or label item `deleting` and returns it as marked, or undefined when it does not exist. */
export async function markDeleting(key: Key): Promise<Item | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET deleting = :true',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':true': true },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
