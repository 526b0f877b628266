import type { Server } from 'node:http';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys, LABEL_LINK_SHARDS } from '#store/keys';
import { shardOf } from '#store/shards';
import { createLabel } from '#domain/labels';
import { labelLinkItem, taskLinkItem, taskVersionItem } from '#store/linkItems';
import { homeShard } from '#store/taskShardLayout';
import { storedProjectItems } from '#domain/projects';
import { nameKey } from '#domain/text';
import { TABLE, tableName } from '#store/table';
import { checkTable } from '#checker/invariants';
import { createGateway } from '#local/gateway';
import { metered, type Usage } from './capacity.ts';
import { BENCH_ACTOR, batchPut, benchWorkspace, handlers, projectRecord, seedProjects, type Workspace } from './harness.ts';
import { log, median, timed } from './stats.ts';
import type { LabelRecord, ProjectRecord } from '#domain/entities';

/**
 * Section 5: does a request's cost grow with the workspace? List page and find-by-name with 100
 * vs 10,000 projects; delete of a project with 10,000 links and of a label with 10,000 links.
 */
export interface ScaleRow {
  query: string;
  small: { ms: number; usage: Usage };
  large: { ms: number; usage: Usage };
  ratio: number;
  /** The same Query sent raw, 10,000 vs 100: what DynamoDB Local itself does with the bigger partition. */
  rawRatio?: number;
}

export interface DeleteRow {
  scenario: string;
  links: number;
  items: number;
  /** How long the stream processor took to derive the seeded links' counters (link records per second). */
  seedDrainMs: number;
  /** The DELETE request itself. */
  ms: number;
  usage: Usage;
  status: number;
  /** From the DELETE's answer until the cascade and the counters it moves have drained. */
  drainMs: number;
  leftovers: number;
  /** The invariant checker's findings (null: not run, the table is too big to scan in a benchmark). */
  violationsBefore: number | null;
  violationsAfter: number | null;
}

const projectName = (i: number) => `Project ${String(i + 1).padStart(5, '0')}`;

export async function measureListScale(iterations: number): Promise<ScaleRow[]> {
  const small = await benchWorkspace('scale100');
  const large = await benchWorkspace('scale10k');
  await seedProjects(small.ws, 100, projectName);
  const seeded = await timed(() => seedProjects(large.ws, 10_000, projectName));
  log(`scale: seeded 10,000 projects in ${(seeded.ms / 1000).toFixed(1)} s`);
  const raw = (input: Record<string, unknown>) => db.send(new QueryCommand({ TableName: tableName(), Limit: 51, ...input } as never));
  const queries: { query: string; call: (w: Workspace) => Promise<unknown>; raw?: (w: Workspace) => Promise<unknown> }[] = [
    {
      query: 'list projects, first page of 50',
      call: (w) => w.invoke('list-projects'),
      raw: (w) =>
        raw({
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.workspace(w.ws), ':p': keys.projectSkPrefix },
          ConsistentRead: true,
        }),
    },
    {
      query: 'list projects, status=in_progress, first page',
      call: (w) => w.invoke('list-projects', { query: { status: 'in_progress' } }),
      raw: (w) =>
        raw({
          IndexName: TABLE.indexes.byStatus.name,
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.projectStatusPartition(w.ws, 'in_progress') },
        }),
    },
    {
      query: 'find by name "project 0005" (10 hits)',
      call: (w) => w.invoke('list-projects', { query: { name: 'project 0005' } }),
      raw: (w) =>
        raw({
          IndexName: TABLE.indexes.byName.name,
          KeyConditionExpression: 'GSI2PK = :pk AND begins_with(GSI2SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.projectNamePartition(w.ws), ':p': nameKey('project 0005') },
        }),
    },
  ];
  // The cursor of page 1 leads to the same page 2 in both sizes.
  const page2 = async (w: Workspace) => {
    const first = await w.invoke('list-projects');
    return w.invoke('list-projects', { query: { cursor: first.body.meta.next_cursor } });
  };
  const rows: ScaleRow[] = [];
  for (const q of [...queries, { query: 'list projects, page 2 (cursor from page 1; both calls)', call: page2 }]) {
    const usage = { small: (await metered(() => q.call(small))).usage, large: (await metered(() => q.call(large))).usage };
    const ms = { small: [] as number[], large: [] as number[], rawSmall: [] as number[], rawLarge: [] as number[] };
    for (let i = 0; i < iterations; i++) {
      ms.small.push((await timed(() => q.call(small))).ms);
      ms.large.push((await timed(() => q.call(large))).ms);
      if (q.raw) {
        ms.rawSmall.push((await timed(() => q.raw!(small))).ms);
        ms.rawLarge.push((await timed(() => q.raw!(large))).ms);
      }
    }
    rows.push({
      query: q.query,
      small: { ms: median(ms.small), usage: usage.small },
      large: { ms: median(ms.large), usage: usage.large },
      ratio: median(ms.large) / median(ms.small),
      ...(q.raw ? { rawRatio: median(ms.rawLarge) / median(ms.rawSmall) } : {}),
    });
  }
  return rows;
}

/**
 * Items left in a partition (only link-related ones when the partition also holds task versions), but the delete's
 * mark (store/tombstones.ts), which stays by design and expires in a day.
 */
async function countPartition(part: { pk: string; linksOnly?: boolean }): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ...(part.linksOnly
          ? {
              FilterExpression: '#type IN (:taskLink, :labelLink, :labelUse)',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: {
                ':pk': part.pk,
                ':taskLink': ItemType.taskLink,
                ':labelLink': ItemType.labelLink,
                ':labelUse': ItemType.labelUse,
              },
            }
          : {
              FilterExpression: '#type <> :mark',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ':pk': part.pk, ':mark': ItemType.tombstone },
            }),
        ConsistentRead: true,
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    n += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}

async function serveGateway(): Promise<{ url: string; server: Server }> {
  const loaded = await handlers(); // loaded before: the figures are of requests, not of cold starts
  const server = createGateway(
    { handler: async (r) => loaded.handlers.get(r)!, authorizer: async () => loaded.authorizer },
    { log: () => undefined },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

async function deleteThroughApi(url: string, w: Workspace, path: string) {
  const { usage, value } = await metered(() =>
    timed(async () => {
      const res = await fetch(`${url}${path}?company_slug=${w.ws}`, { method: 'DELETE', headers: { authorization: `Bearer ${w.token}` } });
      await res.text();
      return res.status;
    }),
  );
  return { usage, ms: value.ms, status: value.value };
}

/**
 * Links seeded straight into the table with the same item builders attach uses: both halves of every
 * link and one version per task. Use counters and labels_count are left to the stream processor, which
 * derives them from the seeded links' stream records, as it does for attaches.
 */
function linkItems(ws: string, project: ProjectRecord, labels: LabelRecord[], tasks: string[], now: string) {
  const ref = { id: project.id, slug: project.slug };
  const items: Record<string, unknown>[] = [];
  for (const task of tasks) {
    // In the task's home, and the label side in the shard an attach puts it in (a table spread from the start:
    // store/taskShardLayout.ts, store/labelLinkLayout.ts).
    const home = homeShard(task);
    items.push(taskVersionItem(ws, project.id, task, labels.length, home));
    const shard = shardOf(task, LABEL_LINK_SHARDS);
    for (const l of labels)
      items.push(taskLinkItem(ws, ref, l, task, now, undefined, shard, home), labelLinkItem(ws, ref, l, task, now, shard));
  }
  return items;
}

const taskIds = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `done` (every 100 ms, up to `limitMs`); the time it took. */
async function until(done: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > limitMs) throw new Error(`not drained within ${limitMs / 1000} s`);
    await sleep(100);
  }
  return performance.now() - started;
}

const itemExists = async (key: { PK: string; SK: string }) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item !== undefined;
const useCount = async (projectId: string, labelId: number) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.labelUse(projectId, labelId), ConsistentRead: true }))).Item?.n ?? 0;

/** Counters stalled this long have stopped moving: fail with them rather than wait out the limit. */
const STALLED_MS = 120_000;

/** Polls until every (project, label) use counter is `expected`; the time it took. */
async function untilCounters(pairs: (readonly [string, number])[], expected: number): Promise<number> {
  const started = performance.now();
  let last = '';
  let movedAt = started;
  for (;;) {
    const counts = await Promise.all(pairs.map(([p, l]) => useCount(p, l)));
    if (counts.every((n) => n === expected)) return performance.now() - started;
    const now = performance.now();
    const seen = counts.join(',');
    if (seen !== last) [last, movedAt] = [seen, now];
    else if (now - movedAt > STALLED_MS)
      throw new Error(`use counters stalled at ${seen} for ${STALLED_MS / 1000} s (expected ${expected} each)`);
    await sleep(100);
  }
}

export async function measureBigDeletes(opts: { hundredThousand: boolean }): Promise<DeleteRow[]> {
  const { url, server } = await serveGateway();
  const rows: DeleteRow[] = [];
  const now = new Date().toISOString();
  const run = async (
    scenario: string,
    w: Workspace,
    shape: { projects: ProjectRecord[]; labels: LabelRecord[]; tasks: number },
    target: { path: string; job: { PK: string; SK: string } },
    partitions: { pk: string; linksOnly?: boolean }[],
  ) => {
    const tasks = taskIds(shape.tasks, 't');
    // Projects before their links, as attach requires: a link whose project is not there yet is one the
    // stream processor rightly leaves uncounted (its project is gone, or was never there), and the seeding would wait forever.
    const projectItems = shape.projects.flatMap((p) => storedProjectItems(p));
    const linkedItems = shape.projects.flatMap((p) => linkItems(w.ws, p, shape.labels, tasks, now));
    const items = [...projectItems, ...linkedItems];
    const links = shape.projects.length * shape.labels.length * shape.tasks;
    const pairs = shape.projects.flatMap((p) => shape.labels.map((l) => [p.id, l.id] as const));
    const seeded = await timed(async () => {
      await batchPut(projectItems);
      await batchPut(linkedItems);
    });
    const seedDrainMs = seeded.ms + (await untilCounters(pairs, shape.tasks));
    log(
      `scale: seeded ${items.length} items (${links} links) for "${scenario}"; counters derived from the stream ${(seedDrainMs / 1000).toFixed(1)} s after seeding began`,
    );
    // The checker scans the whole table: affordable up to 10,000 links, not at 100,000 (leftovers and counters still are checked).
    const checked = links <= 10_000;
    const before = checked ? await checkTable([w.ws]) : { violations: [] as string[] };
    const { usage, ms, status } = await deleteThroughApi(url, w, target.path);
    const started = performance.now();
    await until(async () => !(await itemExists(target.job)), 1_800_000);
    // A label's cascade moves counters through the links' own records: drained once they are gone too.
    await untilCounters(pairs, 0);
    const drainMs = performance.now() - started;
    const after = checked ? await checkTable([w.ws]) : { violations: [] as string[] };
    const leftovers = (await Promise.all(partitions.map(countPartition))).reduce((a, b) => a + b, 0);
    rows.push({
      scenario,
      links,
      items: items.length,
      seedDrainMs,
      ms,
      usage,
      status,
      drainMs,
      leftovers,
      violationsBefore: checked ? before.violations.length : null,
      violationsAfter: checked ? after.violations.length : null,
    });
    log(
      `scale: ${scenario}: ${status} in ${ms.toFixed(0)} ms (${usage.calls} calls), drained in ${(drainMs / 1000).toFixed(1)} s, ${leftovers} leftovers, ${after.violations.length} violations`,
    );
    for (const v of [...before.violations, ...after.violations].slice(0, 5)) log(`  violation: ${v}`);
  };
  try {
    {
      // A project with 10,000 links: 2,500 tasks carrying 4 labels each.
      const w = await benchWorkspace('bigproject');
      const labels: LabelRecord[] = [];
      for (let i = 0; i < 4; i++) labels.push(await createLabel(w.ws, { title: `Label ${i}`, color: 'AA00AA' }, BENCH_ACTOR));
      const project = projectRecord(w.ws, 'Big Project');
      await run(
        'project with 10,000 links (2,500 tasks x 4 labels)',
        w,
        { projects: [project], labels, tasks: 2_500 },
        { path: `/projects/${project.slug}`, job: keys.projectDeletion(project.id) },
        [
          ...keys.projectShards(project.id).map((pk) => ({ pk })),
          ...labels.flatMap((l) => keys.labelCollectionShards(w.ws, l.id).map((pk) => ({ pk }))),
        ],
      );
    }
    for (const [links, perProject] of (opts.hundredThousand
      ? [
          [10_000, 1_000],
          [100_000, 10_000],
        ]
      : [[10_000, 1_000]]) as [number, number][]) {
      // A label on every task of 10 projects.
      const w = await benchWorkspace(`biglabel${links}`);
      const label = await createLabel(w.ws, { title: 'Everywhere', color: '00AAAA' }, BENCH_ACTOR);
      const projects = Array.from({ length: 10 }, (_, i) => projectRecord(w.ws, `Carrier ${i}`));
      await run(
        `label with ${links.toLocaleString('en-US')} links (10 projects x ${perProject.toLocaleString('en-US')} tasks)`,
        w,
        { projects, labels: [label], tasks: perProject },
        { path: `/projects-labels/${label.slug}`, job: keys.labelDeletion(w.ws, label.id) },
        [
          ...keys.labelCollectionShards(w.ws, label.id).map((pk) => ({ pk })),
          // Task versions stay (a task outlives its labels); links and use counters must not.
          ...projects.flatMap((p) => keys.projectShards(p.id).map((pk) => ({ pk, linksOnly: true }))),
        ],
      );
    }
  } finally {
    server.close();
  }
  return rows;
}

/**
 * The hot path the stream backbone took off the request: `n` parallel attaches of one label to `n`
 * distinct tasks of one project, through the local API. Counts answers by status (the goal: no 503),
 * then waits for the stream to derive the counters and checks them.
 */
export interface HotLabelRow {
  parallel: number;
  statuses: Record<string, number>;
  ms: number;
  drainMs: number;
  useCount: number;
  labelsCount: number;
}

export async function measureHotLabel(apiUrl: string, sizes: number[]): Promise<HotLabelRow[]> {
  const rows: HotLabelRow[] = [];
  for (const n of sizes) {
    const w = await benchWorkspace(`hot${n}`);
    const label = await createLabel(w.ws, { title: 'Triage', color: 'FF8800' }, BENCH_ACTOR);
    const [project] = await seedProjects(w.ws, 1, () => 'Inbox');
    const statuses: Record<string, number> = {};
    const attach = async (i: number) => {
      const res = await fetch(`${apiUrl}/projects-labels/${label.slug}/attach?company_slug=${w.ws}&project_slug=${project!.slug}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ task_uuid: `task-${i}` }),
      });
      await res.text();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    };
    const burst = await timed(() => Promise.all(Array.from({ length: n }, (_, i) => attach(i))));
    const drainMs = await until(async () => (await useCount(project!.id, label.id)) === (statuses['200'] ?? 0), 120_000);
    const stats = await fetch(`${apiUrl}/projects/${project!.slug}/stats?company_slug=${w.ws}`, {
      headers: { authorization: `Bearer ${w.token}` },
    });
    const labelsCount = ((await stats.json()) as { data: { labels_count: number } }).data.labels_count;
    rows.push({ parallel: n, statuses, ms: burst.ms, drainMs, useCount: await useCount(project!.id, label.id), labelsCount });
    log(
      `hot label: ${n} parallel attaches: ${JSON.stringify(statuses)} in ${burst.ms.toFixed(0)} ms; counters drained in ${drainMs.toFixed(0)} ms`,
    );
  }
  return rows;
}
