import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SQSRecord } from 'aws-lambda';
import { EVENT_SOURCE, INBOUND_TYPES } from '#domain/eventNames';
import type { InboundOutcome } from '#domain/inbound';
import type { consumeInbound } from '#events/inbound';
import { writeDeadLetter } from './deadLetterFile.ts';
import { localLog, type LocalLog } from './localLog';

/**
 * The local stand-in for the deployed inbound path (EventBridge rule -> SQS queue -> consumer Lambda),
 * in-process, behind the interfaces the Lambda handler uses: PutEvents-style entries are matched
 * against the rule (an inbound detail-type, from any source but this service), queued, and delivered
 * to `consumeInbound` in batches of up to 10. A message reported failed is delivered again after a
 * short wait, at most MAX_RECEIVES times, then written to the dead-letter file; a malformed one is
 * written there at once with its reason (the consumer's own dead letters).
 *
 * A sender may wait for what became of its events (`npm run emit` does: POST /__local/events?wait=<s>):
 * each such message is delivered in a batch of its own, so that the consumer's counts for the batch
 * are that event's outcome, and the answer comes when the consumer has finished every one of them (or
 * after the wait, with those not finished yet as 'pending').
 */
const MAX_RECEIVES = 5;
const BATCH = 10;
const POLL_MS = 20;
const LOCAL_EVENTS_PATH = '/__local/events';
/** The longest a sender may wait for its events' verdicts, in seconds. */
const MAX_WAIT_S = 300;

/** What became of one event put on the bus: the consumer's outcome, or why it was set aside. */
export type Verdict =
  | { outcome: InboundOutcome }
  | { outcome: 'dead-lettered'; reason: string }
  /** No rule took it in (not an inbound type, or the service's own source). */
  | { outcome: 'not routed' }
  /** The consumer had not finished it when the wait ran out. */
  | { outcome: 'pending' };

interface Message {
  messageId: string;
  body: string;
  receives: number;
  visibleAt: number;
  /** Tells the waiting sender the verdict (once). */
  settle?: (verdict: Verdict) => void;
}

interface PutEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Time?: string;
}

type PutResult = { EventId: string; Verdict?: Verdict } | { ErrorCode: string; ErrorMessage: string };

export interface LocalInbound {
  /**
   * The PutEvents answer: one entry per input, an EventId (the bus's id) unless the entry is malformed;
   * with `waiting`, each accepted entry's verdict too, once the consumer has finished it.
   */
  put(entries: PutEntry[], waiting?: boolean): { answer: { FailedEntryCount: number; Entries: PutResult[] }; verdicts: Verdicts };
  /** Serves POST /__local/events (what `npm run emit` calls); false for any other request. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  stats: { queued: number; delivered: number; deadLettered: number };
  stop(): Promise<void>;
}

type Verdicts = (Promise<Verdict> | Verdict | undefined)[];

const INBOUND: ReadonlySet<string> = new Set(INBOUND_TYPES);

/** The one outcome the consumer counted for a batch of one message (none for a malformed one). */
function outcomeOf(counts: Awaited<ReturnType<typeof consumeInbound>>['counts']): InboundOutcome | undefined {
  return (Object.keys(counts) as (keyof typeof counts)[]).find(
    (k): k is InboundOutcome => k !== 'malformed' && k !== 'failed' && counts[k] > 0,
  );
}

/** Each verdict known within `ms`; those not known by then are 'pending'. */
async function verdictsWithin(verdicts: Verdicts, ms: number): Promise<(Verdict | undefined)[]> {
  const known: (Verdict | undefined)[] = [];
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(verdicts.map(async (v, i) => (known[i] = await v))),
    new Promise((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
  return verdicts.map((v, i) => (v === undefined ? undefined : (known[i] ?? { outcome: 'pending' })));
}

export function startLocalInbound(opts: {
  consume: (records: SQSRecord[], deadLetters: { put(body: string, reason: string): Promise<void> }) => ReturnType<typeof consumeInbound>;
  deadLetterFile: string;
  log?: LocalLog;
}): LocalInbound {
  const queue: Message[] = [];
  const stats = { queued: 0, delivered: 0, deadLettered: 0 };
  const log = opts.log ?? localLog;
  // Every message that reaches the dead-letter file, the consumer's own (malformed events) included.
  // Counted once written: whoever waits on the count finds the line in the file.
  const deadLetter = async (body: string, reason: string) => {
    await writeDeadLetter(opts.deadLetterFile, body, reason);
    stats.deadLettered++;
    log('warn', 'message dead-lettered', { source: 'inbound-queue', reason });
  };
  let stopping = false;
  const pump = (async () => {
    while (!stopping) {
      const now = Date.now();
      const visible = queue.filter((m) => m.visibleAt <= now);
      // A message whose sender waits for its verdict goes alone (see above); the others in batches.
      const ready = visible[0]?.settle ? visible.slice(0, 1) : visible.filter((m) => !m.settle).slice(0, BATCH);
      if (ready.length === 0) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        continue;
      }
      for (const m of ready) queue.splice(queue.indexOf(m), 1);
      const records = ready.map((m) => {
        m.receives++;
        return {
          messageId: m.messageId,
          body: m.body,
          attributes: { ApproximateReceiveCount: String(m.receives) },
        } as unknown as SQSRecord;
      });
      let failed: Set<string>;
      let outcome: InboundOutcome | undefined;
      // The consumer's dead letters (malformed events) are the verdict of the message they carry.
      const consumerDeadLetter = (body: string, reason: string) => {
        ready.find((m) => m.body === body)?.settle?.({ outcome: 'dead-lettered', reason });
        return deadLetter(body, reason);
      };
      try {
        const out = await opts.consume(records, { put: consumerDeadLetter });
        failed = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
        outcome = ready.length === 1 ? outcomeOf(out.counts) : undefined;
      } catch (error) {
        log('warn', 'batch returned to the queue', { source: 'inbound-queue', size: ready.length, error });
        failed = new Set(ready.map((m) => m.messageId));
      }
      for (const m of ready) {
        if (!failed.has(m.messageId)) {
          stats.delivered++;
          if (outcome) m.settle?.({ outcome });
        } else if (m.receives >= MAX_RECEIVES) {
          const reason = `failed ${m.receives} deliveries`;
          await deadLetter(m.body, reason);
          m.settle?.({ outcome: 'dead-lettered', reason });
        } else queue.push({ ...m, visibleAt: Date.now() + 200 * m.receives });
      }
    }
  })();

  const put: LocalInbound['put'] = (entries, waiting = false) => {
    let failed = 0;
    const verdicts: Verdicts = [];
    const out = entries.map((e, i): PutResult => {
      if (typeof e.DetailType !== 'string' || typeof e.Detail !== 'string') {
        failed++;
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'DetailType and Detail (a JSON string) are required' };
      }
      verdicts[i] = { outcome: 'not routed' };
      const id = randomUUID();
      // The rule: an inbound detail-type from any source but this service. Unmatched: accepted, not routed (as EventBridge).
      if (INBOUND.has(e.DetailType) && e.Source !== EVENT_SOURCE) {
        let detail: unknown;
        try {
          detail = JSON.parse(e.Detail);
        } catch {
          detail = e.Detail;
        }
        const body = JSON.stringify({
          version: '0',
          id,
          'detail-type': e.DetailType,
          source: e.Source ?? 'local',
          account: 'local',
          time: e.Time ?? new Date().toISOString(),
          region: 'local',
          resources: [],
          detail,
        });
        const message: Message = { messageId: randomUUID(), body, receives: 0, visibleAt: 0 };
        if (waiting)
          verdicts[i] = new Promise<Verdict>((resolve) => {
            message.settle = (verdict) => {
              message.settle = undefined;
              resolve(verdict);
            };
          });
        queue.push(message);
        stats.queued++;
      }
      return { EventId: id };
    });
    return { answer: { FailedEntryCount: failed, Entries: out }, verdicts };
  };

  return {
    put,
    stats,
    serve(req, res) {
      if (req.url?.split('?')[0] !== LOCAL_EVENTS_PATH) return false;
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', async () => {
        let answer: unknown;
        let status = 200;
        try {
          if (req.method !== 'POST') throw new Error('POST a PutEvents body: {"Entries":[{"Source","DetailType","Detail"}]}');
          const wait = new URL(req.url!, 'http://localhost').searchParams.get('wait');
          if (wait !== null && !(/^\d{1,3}$/.test(wait) && Number(wait) >= 1 && Number(wait) <= MAX_WAIT_S))
            throw new Error(`wait must be a whole number of seconds from 1 to ${MAX_WAIT_S}`);
          const body = JSON.parse(raw) as { Entries?: PutEntry[] };
          if (!Array.isArray(body.Entries)) throw new Error('Entries must be an array');
          const accepted = put(body.Entries, wait !== null);
          if (wait !== null) {
            const known = await verdictsWithin(accepted.verdicts, Number(wait) * 1000);
            accepted.answer.Entries = accepted.answer.Entries.map((e, i) => (known[i] ? { ...e, Verdict: known[i] } : e));
          }
          answer = accepted.answer;
        } catch (error) {
          status = 400;
          answer = { message: (error as Error).message };
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
      return true;
    },
    stop: async () => {
      stopping = true;
      await pump;
    },
  };
}
