import { settingValue } from '#lib/settings/check';
import { db } from '#store/client';
import { PartitionBuckets } from './buckets';
import { sideReader } from './images';
import { partitionSimulator, SIMULATOR_MIDDLEWARE } from './simulator';

/**
 * `npm start`'s switch (imported once the client points at DynamoDB Local): with
 * DYNAMODB_PARTITION_LIMITS set, every call of the shared client (each function, the stream processor,
 * the inbound consumer, the webhook deliverer) goes through the partition simulator. Only against its
 * own DynamoDB Local: a real table throttles by itself, and the simulator sends a batch's admitted
 * requests in a body changed after signing, which DynamoDB Local accepts and DynamoDB would not.
 */
export function simulatePartitions(opts: { embedded: boolean }): void {
  const limits = settingValue('DYNAMODB_PARTITION_LIMITS');
  if (!limits) return;
  if (!opts.embedded) {
    console.error(
      'DYNAMODB_PARTITION_LIMITS is set, but npm start serves a real table (TABLE_NAME), which throttles by itself: it is not used.',
    );
    return;
  }
  db.middlewareStack.add(partitionSimulator(new PartitionBuckets(limits), sideReader()), SIMULATOR_MIDDLEWARE);
  console.log(
    `Partition simulator on (DYNAMODB_PARTITION_LIMITS): ${limits.rcu} read and ${limits.wcu} write units per second per partition key value, ${limits.burstSeconds} s of burst${limits.split > 1 ? `, each key as if split for heat into ${limits.split} partitions (each item at one partition's units)` : ''}`,
  );
}
