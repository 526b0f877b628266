import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './client';
import { TransactionCancelled } from './errors';
import { AGAIN, RETRY, withRetries } from './retry';
import type { Key } from './keys';
import { tableName } from './table';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface Expression {
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

function expressionParts(e: Expression) {
  return {
    ...(e.condition ? { ConditionExpression: e.condition } : {}),
    ...(e.names && Object.keys(e.names).length ? { ExpressionAttributeNames: e.names } : {}),
    ...(e.values && Object.keys(e.values).length ? { ExpressionAttributeValues: e.values } : {}),
  };
}

/** Builders for transaction items, so callers never repeat the table name or empty expression maps. */
export const tx = {
  put: (item: Record<string, unknown>, e: Expression = {}): TransactItem => ({
    Put: { TableName: tableName(), Item: item, ...expressionParts(e) },
  }),
  update: (key: Key, update: string, e: Expression = {}): TransactItem => ({
    Update: { TableName: tableName(), Key: key, UpdateExpression: update, ...expressionParts(e) },
  }),
  delete: (key: Key, e: Expression = {}): TransactItem => ({
    Delete: { TableName: tableName(), Key: key, ...expressionParts(e) },
  }),
  check: (key: Key, e: Expression & { condition: string }): TransactItem => ({
    ConditionCheck: { TableName: tableName(), Key: key, ...expressionParts(e) } as NonNullable<TransactItem['ConditionCheck']>,
  }),
};

/**
 * One TransactWriteItems of named parts. A cancellation comes back as TransactionCancelled with
 * each part's reason under its name; any other error is the SDK's own.
 */
export async function transact(parts: Iterable<[name: string, item: TransactItem]>): Promise<void> {
  const list = [...parts];
  try {
    await db.send(new TransactWriteCommand({ TransactItems: list.map(([, item]) => item) }));
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
    const codes = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    throw new TransactionCancelled(new Map(list.map(([name], i) => [name, codes[i]?.Code ?? 'None'])));
  }
}

/**
 * Runs an optimistic read-then-transact step until it commits. A step reads what it needs, then
 * writes with conditions on what it read; when another writer got in between, the transaction is
 * cancelled and the step runs again on fresh reads (RETRY.conflicts bounds the rounds). A step that
 * reads a cancellation as final (e.g. a resource that is gone) throws its own error instead.
 */
export function withOptimisticRetry<T>(step: () => Promise<T>): Promise<T> {
  return withRetries(RETRY.conflicts, 'Too many concurrent changes to the same items; retry shortly.', async () => {
    try {
      return await step();
    } catch (error) {
      if (error instanceof TransactionCancelled && (error.conflicted || error.anyConditionFailed)) return AGAIN;
      throw error;
    }
  });
}
