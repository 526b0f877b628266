import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SQSRecord } from 'aws-lambda';
import { EVENT_SOURCE, INBOUND_TYPES } from '#domain/eventNames';
import type { consumeInbound } from '#events/inbound';

/**
 * The local stand-in for the deployed inbound path (EventBridge rule -> SQS queue -> consumer Lambda),
 * in-process, behind the interfaces the Lambda handler uses: PutEvents-style entries are matched
 * against the rule (an inbound detail-type, from any source but this service), queued, and delivered
 * to `consumeInbound` in batches of up to 10. A message reported failed is delivered again after a
 * short wait, at most MAX_RECEIVES times, then written to the dead-letter file; a malformed one is
 * written there at once with its reason (the consumer's own dead letters).
 */
const MAX_RECEIVES = 5;
const BATCH = 10;
const POLL_MS = 20;
const LOCAL_EVENTS_PATH = '/__local/events';

interface Message {
  messageId: string;
  body: string;
  receives: number;
  visibleAt: number;
}

interface PutEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Time?: string;
}

export interface LocalInbound {
  /** The PutEvents answer: one entry per input, an EventId when the rule matched and the event was queued. */
  put(entries: PutEntry[]): { FailedEntryCount: number; Entries: ({ EventId: string } | { ErrorCode: string; ErrorMessage: string })[] };
  /** Serves POST /__local/events (what `npm run emit` calls); false for any other request. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  stats: { queued: number; delivered: number; deadLettered: number };
  stop(): Promise<void>;
}

const INBOUND: ReadonlySet<string> = new Set(INBOUND_TYPES);

export function startLocalInbound(opts: {
  consume: (records: SQSRecord[], deadLetters: { put(body: string, reason: string): Promise<void> }) => ReturnType<typeof consumeInbound>;
  deadLetterFile: string;
  log?: (line: string) => void;
}): LocalInbound {
  const queue: Message[] = [];
  const stats = { queued: 0, delivered: 0, deadLettered: 0 };
  const log = opts.log ?? ((line: string) => console.error(line));
  const deadLetter = async (body: string, reason: string) => {
    stats.deadLettered++;
    log(`inbound event dead-lettered: ${reason}`);
    await mkdir(dirname(opts.deadLetterFile), { recursive: true });
    await appendFile(opts.deadLetterFile, `${JSON.stringify({ reason, at: new Date().toISOString(), body })}\n`);
  };
  let stopping = false;
  const pump = (async () => {
    while (!stopping) {
      const now = Date.now();
      const ready = queue.filter((m) => m.visibleAt <= now).slice(0, BATCH);
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
      try {
        const out = await opts.consume(records, { put: deadLetter });
        failed = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
      } catch (error) {
        log(`inbound batch failed: ${(error as Error).message}`);
        failed = new Set(ready.map((m) => m.messageId));
      }
      for (const m of ready) {
        if (!failed.has(m.messageId)) stats.delivered++;
        else if (m.receives >= MAX_RECEIVES) await deadLetter(m.body, `failed ${m.receives} deliveries`);
        else queue.push({ ...m, visibleAt: Date.now() + 200 * m.receives });
      }
    }
  })();

  const put: LocalInbound['put'] = (entries) => {
    let failed = 0;
    const out = entries.map((e) => {
      if (typeof e.DetailType !== 'string' || typeof e.Detail !== 'string') {
        failed++;
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'DetailType and Detail (a JSON string) are required' };
      }
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
        queue.push({ messageId: randomUUID(), body, receives: 0, visibleAt: 0 });
        stats.queued++;
      }
      return { EventId: id };
    });
    return { FailedEntryCount: failed, Entries: out };
  };

  return {
    put,
    stats,
    serve(req, res) {
      if (req.url?.split('?')[0] !== LOCAL_EVENTS_PATH) return false;
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        let answer: unknown;
        let status = 200;
        try {
          if (req.method !== 'POST') throw new Error('POST a PutEvents body: {"Entries":[{"Source","DetailType","Detail"}]}');
          const body = JSON.parse(raw) as { Entries?: PutEntry[] };
          if (!Array.isArray(body.Entries)) throw new Error('Entries must be an array');
          answer = put(body.Entries);
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
