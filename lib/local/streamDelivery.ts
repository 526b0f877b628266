import { appendFileSync } from 'node:fs';
import type { DynamoDBRecord } from 'aws-lambda';
import type { LocalLog } from './localLog';

/** Retries of a single record before it is set aside (the stack's mapping allows 10, with longer waits). */
const RECORD_RETRIES = 5;
const MAX_BACKOFF_MS = 2_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What the deployed event source mapping does with a batch the handler fails: bisects it, retries a
 * lone record a bounded number of times with backoff, then sets it aside in the failure file (the
 * local on-failure destination) with its error, so one poison record never blocks the stream.
 */
export function batchDelivery(opts: {
  handle: (records: DynamoDBRecord[]) => Promise<unknown>;
  failureFile?: string | undefined;
  log: LocalLog;
  stats: { failures: number; deadLettered: number };
  stopping: () => boolean;
}): (records: DynamoDBRecord[]) => Promise<void> {
  const deliver = async (records: DynamoDBRecord[]): Promise<void> => {
    for (let attempt = 0; !opts.stopping(); attempt++) {
      try {
        await opts.handle(records);
        return;
      } catch (error) {
        opts.stats.failures++;
        if (records.length > 1) {
          const half = Math.ceil(records.length / 2);
          await deliver(records.slice(0, half));
          await deliver(records.slice(half));
          return;
        }
        if (attempt >= RECORD_RETRIES) {
          opts.stats.deadLettered++;
          const record = records[0]!;
          opts.log('warn', 'stream record set aside', {
            source: 'stream-runner',
            event_id: record.eventID,
            event_name: record.eventName,
            attempts: attempt + 1,
            error,
          });
          if (opts.failureFile)
            appendFileSync(
              opts.failureFile,
              `${JSON.stringify({ error: (error as Error).message, failedAt: new Date().toISOString(), record })}\n`,
            );
          return;
        }
        await sleep(Math.min(MAX_BACKOFF_MS, 100 * 2 ** attempt));
      }
    }
  };
  return deliver;
}
