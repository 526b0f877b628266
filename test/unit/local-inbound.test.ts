import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConsumeOutcome } from '#events/inbound';
import { startLocalInbound, type LocalInbound } from '#local/inboundQueue';

/**
 * The local inbound queue tells a sender that waits (`npm run emit`) what became of each event it
 * put: the consumer's outcome for that event and no other, the consumer's dead-letter reason, or
 * 'pending' when the consumer has not finished it within the wait. The consumer here is a stand-in
 * that answers by the event's `task_uuid`, with the real consumer's counts and dead-letter interface.
 */
const dir = mkdtempSync(join(tmpdir(), 'pls-local-inbound-'));
let inbound: LocalInbound;
let server: Server;
let url: string;
/** Released by the test that holds the consumer on an event. */
let release: () => void = () => undefined;

async function consume(records: SQSRecord[], deadLetters: { put(body: string, reason: string): Promise<void> }): Promise<ConsumeOutcome> {
  const counts: ConsumeOutcome['counts'] = { applied: 0, unchanged: 0, unknown_project: 0, before_project: 0, malformed: 0, failed: 0 };
  for (const record of records) {
    const task = (JSON.parse(record.body) as { detail: { task_uuid?: string } }).detail.task_uuid;
    if (task === undefined) {
      await deadLetters.put(record.body, 'detail.task_uuid: required for Task Created');
      counts.malformed++;
    } else if (task === 'held') await new Promise<void>((resolve) => (release = resolve));
    else counts[task === 'new' ? 'applied' : task === 'again' ? 'unchanged' : 'unknown_project']++;
  }
  return { batchItemFailures: [], counts };
}

beforeAll(async () => {
  inbound = startLocalInbound({ consume, deadLetterFile: join(dir, 'dead-letters.jsonl'), log: () => undefined });
  server = createServer((req, res) => {
    if (!inbound.serve(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/__local/events`;
});
afterAll(async () => {
  release();
  await new Promise((resolve) => server.close(resolve));
  await inbound.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function put(tasks: (string | undefined)[], query = '?wait=30') {
  const Entries = tasks.map((task) => ({
    Source: 'tasks-service',
    DetailType: 'Task Created',
    Detail: JSON.stringify({ company_slug: 'acme', project_slug: 'web', ...(task === undefined ? {} : { task_uuid: task }) }),
  }));
  const res = await fetch(`${url}${query}`, { method: 'POST', body: JSON.stringify({ Entries }) });
  return {
    status: res.status,
    body: (await res.json()) as { FailedEntryCount: number; Entries: { EventId: string; Verdict?: unknown }[] },
  };
}

describe('the local inbound queue, asked to wait', () => {
  test('answers each event with its own outcome, even among events nobody waits for', async () => {
    // Events nobody waits for, in the queue at the same time: they must not blur the verdicts.
    const unwatched = put(['new', 'again', 'new', 'other', undefined], '');
    const { status, body } = await put(['new', 'again', 'other', undefined]);
    expect(status).toBe(200);
    expect(body.Entries.map((e) => e.Verdict)).toEqual([
      { outcome: 'applied' },
      { outcome: 'unchanged' },
      { outcome: 'unknown_project' },
      { outcome: 'dead-lettered', reason: 'detail.task_uuid: required for Task Created' },
    ]);
    expect(body.Entries.every((e) => typeof e.EventId === 'string')).toBe(true);
    expect((await unwatched).body.Entries.every((e) => e.Verdict === undefined)).toBe(true);
  });

  test('an event the rule does not take in is said so at once', async () => {
    const res = await fetch(`${url}?wait=30`, {
      method: 'POST',
      body: JSON.stringify({ Entries: [{ Source: 'project-label-service', DetailType: 'Task Created', Detail: '{}' }] }),
    });
    expect(((await res.json()) as { Entries: { Verdict: unknown }[] }).Entries[0]!.Verdict).toEqual({ outcome: 'not routed' });
  });

  test('an event the consumer has not finished within the wait is pending; the queue goes on after it', async () => {
    const { body } = await put(['held'], '?wait=1');
    expect(body.Entries[0]!.Verdict).toEqual({ outcome: 'pending' });
    release();
    expect((await put(['new'])).body.Entries[0]!.Verdict).toEqual({ outcome: 'applied' });
  });

  test('a wait that is not a number of seconds from 1 to 300 is refused', async () => {
    for (const wait of ['0', '301', 'soon', '1.5']) expect((await put(['new'], `?wait=${wait}`)).status).toBe(400);
  });
});
