import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What a piece of work cost in DynamoDB: calls (by operation) and consumed capacity. */
export interface Usage {
  calls: number;
  byOperation: Record<string, number>;
  rcu: number;
  wcu: number;
  /** Some of the capacity is modelled rather than reported (transactions; see installMeter). */
  modelled?: boolean;
}

const emptyUsage = (): Usage => ({ calls: 0, byOperation: {}, rcu: 0, wcu: 0 });

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

let current: Usage | null = null;

/**
 * Adds a middleware to a client's stack (bench only) that asks DynamoDB for the consumed capacity
 * of every call (ReturnConsumedCapacity TOTAL) and adds it to the usage being measured. Batch and
 * transaction calls return one entry per table, so arrays are summed.
 */
export function installMeter(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
      const usage = current;
      if (usage) {
        usage.calls++;
        usage.byOperation[operation] = (usage.byOperation[operation] ?? 0) + 1;
      }
      const result = await next({ ...args, input: { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' } });
      if (usage && operation === 'TransactWriteItems') {
        // DynamoDB Local reports a flat 2 units per transaction whatever its size; model what AWS
        // bills instead: 2 write units per written item (all items here are under 1 KB) and a
        // ConditionCheck as a transactional read (2 read units). Index copies are not modelled.
        usage.modelled = true;
        for (const item of (args.input as { TransactItems?: Record<string, unknown>[] }).TransactItems ?? []) {
          if ('ConditionCheck' in item) usage.rcu += 2;
          else usage.wcu += 2;
        }
      } else if (usage) {
        const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
        for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
          if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
            usage.rcu += c.ReadCapacityUnits ?? 0;
            usage.wcu += c.WriteCapacityUnits ?? 0;
          } else if (READS.has(operation)) usage.rcu += c.CapacityUnits ?? 0;
          else usage.wcu += c.CapacityUnits ?? 0;
        }
      }
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity', priority: 'high' },
  );
}

/** Runs `fn` and returns what it cost. Not reentrant: measure one thing at a time. */
export async function metered<T>(fn: () => Promise<T>): Promise<{ usage: Usage; value: T }> {
  const usage = emptyUsage();
  current = usage;
  try {
    const value = await fn();
    return { usage, value };
  } finally {
    current = null;
  }
}

export const describeCalls = (u: Usage) =>
  Object.entries(u.byOperation)
    .map(([op, n]) => `${n} ${op}`)
    .join(' + ') || 'none';
