import type { Server } from 'node:http';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys } from '#store/keys';
import { createLabel, type LabelRecord } from '#domain/labels';
import { labelLinkItem, labelUseItem, taskLinkItem, taskVersionItem } from '#store/links';
import { storedProjectItem, type ProjectRecord } from '#domain/projects';
import { nameKey } from '#domain/text';
import { TABLE, tableName } from '#store/table';
import { checkTable } from '#checker/invariants';
import { createGateway } from '#local/gateway';
import { metered, type Usage } from './capacity.ts';
import { batchPut, benchWorkspace, handlers, projectRecord, seedProjects, type Workspace } from './harness.ts';
import { log, median, timed } from './stats.ts';

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
  items: number;
  ms: number;
  usage: Usage;
  status: number;
  leftovers: number;
  violationsBefore: number;
  violationsAfter: number;
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

/** Items left in a partition (only link-related ones when the partition also holds task versions). */
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
          : { ExpressionAttributeValues: { ':pk': part.pk } }),
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
  const server = createGateway(await handlers(), { log: () => undefined });
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
 * Links seeded straight into the table with the same item builders attach uses: both halves of
 * every link, one version per task, one use counter per project and label, and labels_count.
 */
function linkItems(ws: string, project: ProjectRecord, labels: LabelRecord[], tasks: string[], now: string) {
  const ref = { id: project.id, slug: project.slug };
  const items: Record<string, unknown>[] = [];
  for (const task of tasks) {
    items.push(taskVersionItem(ws, project.id, task, labels.length));
    for (const l of labels) items.push(taskLinkItem(ws, ref, l, task, now), labelLinkItem(ws, ref, l, task, now));
  }
  for (const l of labels) items.push(labelUseItem(ws, project.id, l.id, tasks.length));
  return items;
}

const taskIds = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);

export async function measureBigDeletes(): Promise<DeleteRow[]> {
  const { url, server } = await serveGateway();
  const rows: DeleteRow[] = [];
  const now = new Date().toISOString();
  const run = async (
    scenario: string,
    w: Workspace,
    items: Record<string, unknown>[],
    path: string,
    partitions: { pk: string; linksOnly?: boolean }[],
  ) => {
    const seeded = await timed(() => batchPut(items));
    log(`scale: seeded ${items.length} items in ${(seeded.ms / 1000).toFixed(1)} s for "${scenario}"`);
    const before = await checkTable([w.ws]);
    const { usage, ms, status } = await deleteThroughApi(url, w, path);
    const after = await checkTable([w.ws]);
    const leftovers = (await Promise.all(partitions.map(countPartition))).reduce((a, b) => a + b, 0);
    rows.push({
      scenario,
      items: items.length,
      ms,
      usage,
      status,
      leftovers,
      violationsBefore: before.violations.length,
      violationsAfter: after.violations.length,
    });
    log(
      `scale: ${scenario}: ${status} in ${(ms / 1000).toFixed(1)} s, ${usage.calls} calls, ${leftovers} leftovers, ${after.violations.length} violations`,
    );
    for (const v of [...before.violations, ...after.violations].slice(0, 5)) log(`  violation: ${v}`);
  };
  try {
    {
      // A project with 10,000 links: 2,500 tasks carrying 4 labels each.
      const w = await benchWorkspace('bigproject');
      const labels: LabelRecord[] = [];
      for (let i = 0; i < 4; i++) labels.push(await createLabel(w.ws, { title: `Label ${i}`, color: 'AA00AA' }));
      const project = projectRecord(w.ws, 'Big Project', { labels_count: labels.length });
      const items = [storedProjectItem(project), ...linkItems(w.ws, project, labels, taskIds(2_500, 't'), now)];
      await run('project with 10,000 links (2,500 tasks x 4 labels)', w, items, `/projects/${project.slug}`, [
        { pk: keys.projectCollection(project.id) },
        ...labels.map((l) => ({ pk: keys.labelCollection(w.ws, l.id) })),
      ]);
    }
    {
      // A label with 10,000 links: 10 projects x 1,000 tasks.
      const w = await benchWorkspace('biglabel');
      const label = await createLabel(w.ws, { title: 'Everywhere', color: '00AAAA' });
      const projects = Array.from({ length: 10 }, (_, i) => projectRecord(w.ws, `Carrier ${i}`, { labels_count: 1 }));
      const items = projects.flatMap((p) => [storedProjectItem(p), ...linkItems(w.ws, p, [label], taskIds(1_000, 't'), now)]);
      await run('label with 10,000 links (10 projects x 1,000 tasks)', w, items, `/projects-labels/${label.slug}`, [
        { pk: keys.labelCollection(w.ws, label.id) },
        // Task versions stay (a task outlives its labels); links and use counters must not.
        ...projects.map((p) => ({ pk: keys.projectCollection(p.id), linksOnly: true })),
      ]);
    }
  } finally {
    server.close();
  }
  return rows;
}
