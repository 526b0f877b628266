import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { consumeInbound } from '#events/inbound';
import { createLabel } from '#domain/labels';
import { createProject, getProjectWithStats } from '#domain/projects';
import { changeLabels } from '#domain/taskLabels';
import type { OutboundEvent } from '#events/outbound';
import { processStreamBatch } from '#events/processor';
import { reachesProcessor, STREAM_BATCH_SIZE } from '#events/streamFilter';
import { ensureTable } from '#local/database';
import { drainTableStream } from '#local/streamReads';
import { metered, type Usage } from './capacity.ts';
import { BENCH_ACTOR } from './harness.ts';
import { log } from './stats.ts';

/**
 * What the stream processor costs per change, off the request path: the processor's own DynamoDB
 * calls for the stream records of one attach, one detach, and a batch of 100 attaches of one label
 * (one project), measured on a table of its own so that only these records are on its stream.
 */
export interface StreamCostRow {
  scenario: string;
  records: number;
  events: number;
  usage: Usage;
  minimum: string;
  minimumCalls: number;
}

const TABLE = 'bench-stream-cost';

export async function measureStreamCosts(): Promise<StreamCostRow[]> {
  const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const previous = process.env.TABLE_NAME;
  process.env.TABLE_NAME = TABLE;
  await ensureTable(admin, TABLE);
  const checkpoints: Record<string, string> = {};
  const events: OutboundEvent[] = [];
  const bus = { publish: async (e: OutboundEvent[]) => void events.push(...e) };
  const rows: StreamCostRow[] = [];
  /** Collects the stream records `work` produced, then runs the processor over them as one batch, metered. */
  const measure = async (scenario: string, work: () => Promise<unknown>, minimum: string, minimumCalls: number) => {
    await work();
    const records: DynamoDBRecord[] = [];
    await drainTableStream({
      endpoint: process.env.DYNAMODB_ENDPOINT!,
      tableName: TABLE,
      handle: async (b) => void records.push(...b),
      checkpoints,
    });
    events.length = 0;
    const { usage } = await metered(() => processStreamBatch(records, bus));
    // What the processor wrote is on the stream too (counters, receipts): moved past, as the processor would skip it.
    await drainTableStream({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: TABLE, handle: async () => undefined, checkpoints });
    rows.push({ scenario, records: records.length, events: events.length, usage, minimum, minimumCalls });
    log(
      `stream cost: ${scenario}: ${records.length} records, ${events.length} events, ${usage.calls} calls, ${usage.rcu} RCU, ${usage.wcu} WCU`,
    );
  };
  /**
   * A link's record: its counters as before, and its history entry, written after the workspace's position read
   * (the label as the link's item keeps it: nothing to read for the event), in one transaction with the position's
   * move and the entry's mark: its workspace, project and task copies.
   */
  const HISTORY_ONE =
    'GetItem use counter + TransactWrite(receipt, use counter, labels_count) + BatchGet history position and layout + TransactWrite(position, mark, 3 copies)';
  try {
    const ws = 'bench-stream';
    const project = await createProject(ws, { name: 'Stream Project', owner: BENCH_ACTOR });
    const label = await createLabel(ws, { title: 'Stream Label', color: '123456' }, BENCH_ACTOR);
    // Processed, not metered: the workspace's history has its first entries (its layout made), as any workspace's has.
    await drainTableStream({
      endpoint: process.env.DYNAMODB_ENDPOINT!,
      tableName: TABLE,
      handle: (b) => processStreamBatch(b, bus),
      checkpoints,
    });
    await drainTableStream({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: TABLE, handle: async () => undefined, checkpoints });
    const change = (kind: 'attach' | 'detach', tasks: string[]) =>
      changeLabels(kind, ws, { labelSlug: label.slug, projectSlug: project.slug, taskUuids: tasks }, BENCH_ACTOR);
    await measure('one attach (first use of the label in the project)', () => change('attach', ['t-0']), HISTORY_ONE, 4);
    await measure('one detach (last use: the counter goes)', () => change('detach', ['t-0']), HISTORY_ONE, 4);
    const tasks = Array.from({ length: 100 }, (_, i) => `t-${i + 1}`);
    await measure(
      '100 attaches of one label in one project (one batch)',
      () => change('attach', tasks),
      '2 x (GetItem use counter + TransactWrite with up to 90 receipts) + 5 x (BatchGet history position and layout + TransactWrite of up to 24 entries: position, and a mark and 3 copies each)',
      14,
    );
  } finally {
    await admin.send(new DeleteTableCommand({ TableName: TABLE }));
    admin.destroy();
    process.env.TABLE_NAME = previous ?? '';
  }
  return rows;
}

/**
 * Inbound events applied per second locally, and what each costs: 400 events of one project (tasks
 * created and completed, members, sprints) through the consumer in SQS batches of 10, on a table of
 * its own. The minimum per event: the project read (its id and owner), the thing's state read, one
 * conditional put of the new state; then the stream processor counts the states' changes (a receipt each, the project's
 * kept stats once per batch: store/projectStats.ts), metered apart.
 */
export interface InboundBenchRow {
  events: number;
  seconds: number;
  perSecond: number;
  usage: Usage;
  /** The stream processor's work on the states the events wrote (their counts: a receipt each, the kept stats per batch). */
  stream: Usage;
  minimum: string;
  minimumCalls: number;
}

export async function measureInbound(): Promise<InboundBenchRow> {
  const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT });
  const previous = process.env.TABLE_NAME;
  process.env.TABLE_NAME = 'bench-inbound';
  await ensureTable(admin, process.env.TABLE_NAME);
  try {
    const ws = 'bench-inbound';
    const project = await createProject(ws, { name: 'Inbound Project', owner: BENCH_ACTOR });
    // After the project was created (an event older than its project counts for nothing) and within the
    // consumer's window (at most 5 minutes ahead of its clock): 100 ms apart, in order.
    const created = Date.parse(project.created_at);
    const at = (i: number) => new Date(created + (i + 1) * 100).toISOString();
    const bodies: string[] = [];
    const add = (type: string, subject: Record<string, string>) =>
      bodies.push(
        JSON.stringify({
          'detail-type': type,
          source: 'bench',
          detail: {
            company_slug: ws,
            project_slug: project.slug,
            event_id: `e${bodies.length}`,
            occurred_at: at(bodies.length),
            ...subject,
          },
        }),
      );
    for (let i = 0; i < 150; i++) add('Task Created', { task_uuid: `t${i}` });
    for (let i = 0; i < 150; i++) add('Task Completed', { task_uuid: `t${i}` });
    for (let i = 0; i < 50; i++) add('Member Added', { username: `member-${i}` });
    for (let i = 0; i < 50; i++) add('Sprint Created', { sprint_uuid: `s${i}` });
    const messages = bodies.map((body, i) => ({ messageId: `m${i}`, body }) as unknown as SQSRecord);
    const deadLetters = { put: async () => undefined };
    // A warm consumer, not metered: one event of another project first reads what a function reads once (the stats'
    // LAYOUT item, store/projectStats.ts), as the other measures of this section start warm.
    const warm = await createProject(ws, { name: 'Warm Project', owner: BENCH_ACTOR });
    const warmAt = new Date(Date.parse(warm.created_at) + 100).toISOString();
    const warming = {
      'detail-type': 'Sprint Created',
      source: 'bench',
      detail: { company_slug: ws, project_slug: warm.slug, sprint_uuid: 'warm', event_id: 'warm', occurred_at: warmAt },
    };
    if (
      (await consumeInbound([{ messageId: 'warm', body: JSON.stringify(warming) } as unknown as SQSRecord], deadLetters)).batchItemFailures
        .length
    )
      throw new Error('the warming event failed');
    // Its records, and the projects', through the processor before the measure (as a processor that kept up would have).
    const checkpoints: Record<string, string> = {};
    const table = process.env.TABLE_NAME;
    const toProcessor = (b: DynamoDBRecord[]) => processStreamBatch(b.filter(reachesProcessor), { publish: async () => undefined });
    await drainTableStream({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: table, handle: toProcessor, checkpoints });
    const started = performance.now();
    const { usage, value } = await metered(async () => {
      let failures = 0;
      for (let i = 0; i < messages.length; i += 10)
        failures += (await consumeInbound(messages.slice(i, i + 10), deadLetters)).batchItemFailures.length;
      return failures;
    });
    const seconds = (performance.now() - started) / 1000;
    if (value) throw new Error(`${value} inbound events failed in the benchmark`);
    // The stats follow from the states' stream records (store/projectStats.ts), in batches of the deployed mapping's size.
    const records: DynamoDBRecord[] = [];
    await drainTableStream({
      endpoint: process.env.DYNAMODB_ENDPOINT!,
      tableName: table,
      handle: async (b) => void records.push(...b),
      checkpoints,
    });
    const counted = records.filter(reachesProcessor);
    const { usage: stream } = await metered(async () => {
      for (let i = 0; i < counted.length; i += STREAM_BATCH_SIZE)
        await processStreamBatch(counted.slice(i, i + STREAM_BATCH_SIZE), { publish: async () => undefined });
    });
    // Every event must have moved the stats: a benchmark of events dropped or dead-lettered measures nothing.
    const stats = await getProjectWithStats(ws, project.slug);
    const expected = { tasks_count: 150, completed_count: 150, members_count: 51, sprints_count: 50 };
    const got = {
      tasks_count: stats.tasks_count,
      completed_count: stats.completed_count,
      members_count: stats.members_count,
      sprints_count: stats.sprints_count,
    };
    if (JSON.stringify(got) !== JSON.stringify(expected))
      throw new Error(`the inbound events were not all applied: stats ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    log(
      `inbound: ${messages.length} events in ${seconds.toFixed(1)} s, ${usage.calls} calls, ${usage.rcu} RCU, ${usage.wcu} WCU; ` +
        `the stream counting them: ${stream.calls} calls, ${stream.rcu} RCU, ${stream.wcu} WCU`,
    );
    return {
      events: messages.length,
      seconds,
      perSecond: messages.length / seconds,
      usage,
      stream,
      minimum: 'GetItem project + GetItem state + PutItem state (conditional on its version)',
      minimumCalls: 3,
    };
  } finally {
    await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME }));
    admin.destroy();
    process.env.TABLE_NAME = previous ?? '';
  }
}
