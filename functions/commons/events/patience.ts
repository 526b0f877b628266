import type { Context } from 'aws-lambda';
import { isTransient } from '#store/errors';

/**
 * How the stream processor and the inbound consumer meet a throttled table. Work that failed only
 * because the table is busy (isTransient: throttled past the SDK's retries, a transaction lost to a
 * concurrent writer, a 5xx) is done again after a growing, jittered pause, until `deadline` (epoch
 * milliseconds) is near (no attempt starts that could not end before it, at the pace of the last); any
 * other failure is thrown at once, so a poison record is still bisected out
 * and set aside as before. A hot partition gets its units back second by second: waiting here costs
 * some of the invocation's time, where failing would spend one of the event source's few retries (the
 * stream mapping's 10, the inbound queue's receives) and, after them, set the work aside. The work must
 * be idempotent: both consumers' work is (receipts, event times), so doing it again changes nothing.
 */
const FIRST_PAUSE_MS = 200;
const LONGEST_PAUSE_MS = 5_000;
/** What an invocation keeps for itself after its patience: reporting, and the event source's bookkeeping. */
const MARGIN_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The consumers' timeouts: the stack gives the functions these; the local stack waits as long. */
export const CONSUMER_TIMEOUT_S = { streamProcessor: 60, inboundConsumer: 30 } as const;

/** The deadline of an invocation's patience: its timeout, less a margin. */
export const deadlineOf = (context: Pick<Context, 'getRemainingTimeInMillis'>) =>
  Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS;

/** The same for a local delivery: as if the function had just been invoked with `timeoutS`. */
export const deadlineIn = (timeoutS: number) => Date.now() + timeoutS * 1000 - MARGIN_MS;

export async function throughThrottling<T>(work: () => Promise<T>, deadline: number): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    try {
      return await work();
    } catch (error) {
      const longest = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** attempt);
      const pause = longest / 2 + (Math.random() * longest) / 2;
      // Another attempt only if it can end before the deadline, as long as this one took.
      if (!isTransient(error) || Date.now() + pause + (Date.now() - started) >= deadline) throw error;
      await sleep(pause);
    }
  }
}
