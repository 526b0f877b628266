import { BatchWriteCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { ServiceUnavailable } from './errors';
import type { Key } from './keys';
import { tableName } from './table';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const BATCH_SIZE = 25;
const BATCH_CONCURRENCY = 16;
const UNPROCESSED_ATTEMPTS = 8;

/**
 * Deletes every key, 25 per BatchWriteItem, several batches in flight. Items DynamoDB leaves
 * unprocessed (throttling) are sent again with exponential backoff and jitter; if some are still
 * unprocessed after the last attempt the request fails with 503 and the caller can retry safely
 * (deletes are idempotent).
 */
export async function deleteKeys(allKeys: Key[]): Promise<void> {
  const batches: Key[][] = [];
  for (let i = 0; i < allKeys.length; i += BATCH_SIZE) batches.push(allKeys.slice(i, i + BATCH_SIZE));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) await deleteBatch(batches[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, batches.length) }, worker));
}

async function deleteBatch(batch: Key[]): Promise<void> {
  let requests = batch.map((Key) => ({ DeleteRequest: { Key } }));
  for (let attempt = 0; attempt < UNPROCESSED_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * Math.random());
    const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
    const unprocessed = out.UnprocessedItems?.[tableName()] ?? [];
    if (unprocessed.length === 0) return;
    requests = unprocessed as typeof requests;
  }
  throw new ServiceUnavailable('The database is throttling deletes; retry the request.', 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The cancellation reason codes of a cancelled transaction, or null for any other error. */
export function cancellationReasons(error: unknown): string[] | null {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return null;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((r) => r.Code ?? 'None');
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * Marks a project or label `deleting`, the first step of a resumable delete, and returns the item
 * as marked (so no read is needed before it), or null when there is no such item.
 */
export async function markDeleting(key: Key): Promise<Record<string, unknown> | null> {
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
    return Attributes ?? null;
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}

export async function transact(items: TransactItem[]): Promise<void> {
  await db.send(new TransactWriteCommand({ TransactItems: items }));
}

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

export type { TransactItem };

/**
 * Runs an optimistic read-then-transact step until it commits. A step reads what it needs, then
 * writes with conditions on what it read; when another writer got in between, the transaction is
 * cancelled and the step runs again on fresh reads. Gives up with 503 after a bounded number of rounds.
 */
export async function withOptimisticRetry<T>(step: () => Promise<T>, rounds = 12): Promise<T> {
  for (let round = 0; ; round++) {
    try {
      return await step();
    } catch (error) {
      const reasons = cancellationReasons(error);
      const retryable = reasons?.some((r) => r === 'ConditionalCheckFailed' || r === 'TransactionConflict');
      if (!retryable) throw error;
      if (round + 1 >= rounds) throw new ServiceUnavailable('Too many concurrent changes to the same items; retry shortly.', 1);
      await sleep(Math.random() * Math.min(200, 10 * 2 ** round));
    }
  }
}
