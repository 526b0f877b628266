import { AsyncLocalStorage } from 'node:async_hooks';
import { database } from './client';

/** Read and write units a piece of work drew from the table and its indexes, as DynamoDB billed them. */
export interface Units {
  read: number;
  write: number;
}

/** The read operations, as the client and the DocumentClient name their commands. */
const READS = new Set(
  ['GetItem', 'Get', 'BatchGetItem', 'BatchGet', 'Query', 'TransactGetItems', 'TransactGet', 'Scan'].map((op) => `${op}Command`),
);
const MIDDLEWARE = 'consumedUnits';
const measuring = new AsyncLocalStorage<Units>();
let installed = false;

interface Capacity {
  CapacityUnits?: number;
}

/**
 * Runs `work` and answers what its DynamoDB calls drew: every call made within it (on the shared client) asks for its
 * consumed capacity (`TOTAL`, free) and adds it up, a read operation's as read units, a write's as write units. Calls
 * of concurrent work are not mixed up (each runs in its own async context); a call that fails adds nothing.
 */
export async function withUnits<T>(work: () => Promise<T>): Promise<{ result: T; units: Units } | { error: unknown; units: Units }> {
  install();
  const units: Units = { read: 0, write: 0 };
  try {
    return { result: await measuring.run(units, work), units };
  } catch (error) {
    return { error, units };
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  database().middlewareStack.add(
    (next, context) => async (args) => {
      const units = measuring.getStore();
      if (!units) return next(args);
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const out = await next(args);
      const consumed = (out.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      const total = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      units[READS.has(context.commandName ?? '') ? 'read' : 'write'] += total;
      return out;
    },
    { step: 'initialize', name: MIDDLEWARE },
  );
}
