import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#store/client';
import { ItemType, keys, LABEL_LINK_SHARDS, WORKSPACE_COPIES } from '#store/keys';
import { shardOf } from '#store/shards';
import { createLabel } from '#domain/labels';
import { detachNoteItem, labelLinkItem, taskLinkItem, taskVersionItem } from '#store/linkItems';
import { homeShard } from '#store/taskShardLayout';
import { copiesOfItem } from '#store/copyLayouts';
import { getProject, storedProjectItem } from '#domain/projects';
import { nameKey, titleKey } from '#domain/text';
import { TABLE, tableName } from '#store/table';
import { lambdaContext } from '#local/lambdaEvents';
import { metered, type Usage } from './capacity.ts';
import { BENCH_ACTOR, benchWorkspace, handlers, projectRecord, seedProjects } from './harness.ts';
import { log } from './stats.ts';

/**
 * Section 1: what one request of each endpoint costs in DynamoDB calls and capacity, next to a
 * hand-written minimum for the same access pattern (the fewest calls that can answer it correctly
 * with this data model), both measured with the same client middleware on the same data.
 */

/** A delete's marks (store/tombstones.ts), as small as they can be: one in each partition of its collection, expiring. */
const marks = (at: { PK: string; SK: string }[], of: Record<string, unknown>) =>
  at.map((key) => ({
    Put: { TableName: T(), Item: { ...key, type: ItemType.tombstone, ...of, ttl: Math.floor(Date.now() / 1000) + 86_400 } },
  }));

/** A label's or project's copies (store/copies.ts), written in its item's transaction: one in each copy partition. */
const copyPuts = (item: Record<string, any>) => copiesOfItem(item).map((Item) => ({ Put: { TableName: T(), Item } }));
const copyDeletes = (ws: string, slug: string, copy = keys.labelCopy) =>
  Array.from({ length: WORKSPACE_COPIES }, (_, n) => ({ Delete: { TableName: T(), Key: copy(ws, slug, n) } }));
/** A new project's item (conditional on its slug being free), then its copies with a check that it is still there. */
const newProjectMin = async (Item: Record<string, any>) => {
  await send(new PutCommand({ TableName: T(), Item, ConditionExpression: 'attribute_not_exists(PK)' }));
  const check = {
    TableName: T(),
    Key: { PK: Item.PK, SK: Item.SK },
    ConditionExpression: 'id = :id',
    ExpressionAttributeValues: { ':id': Item.id },
  };
  return send(new TransactWriteCommand({ TransactItems: [{ ConditionCheck: check }, ...copyPuts(Item)] }));
};

export interface CostRow {
  endpoint: string;
  scenario: string;
  handler: Usage;
  minimum: Usage;
  minimumIs: string;
}

const T = () => tableName();
// Raw SDK calls, typed loosely: the minimum is about which calls are sent, not their typings.
const send = (command: object): Promise<any> => db.send(command as never);

export async function measureCosts(): Promise<CostRow[]> {
  const w = await benchWorkspace('cost');
  const { ws } = w;
  // A workspace the size of a real one: 60 projects (list pages are full), 10 labels.
  await seedProjects(ws, 60, (i) => `Workstream ${String(i).padStart(3, '0')}`);
  const apollo = (await w.invoke('create-project', { body: { company_slug: ws, name: 'Apollo Mission', description: 'Moon landing' } }))
    .body.data;
  const apolloRecord = await getProject(ws, apollo.slug);
  for (let i = 0; i < 10; i++) await createLabel(ws, { title: `Topic ${i}`, color: 'AABBCC' }, BENCH_ACTOR);
  const bug = await createLabel(ws, { title: 'Bug', color: 'FF0000' }, BENCH_ACTOR);
  const feature = await createLabel(ws, { title: 'Feature', color: '00FF00' }, BENCH_ACTOR);
  const project = { id: apolloRecord.id, slug: apolloRecord.slug };
  // Tasks 1, 2 and 4 carry Bug and task-3 carries Feature: attaching Feature to task 1 (handler) and
  // task 2 (minimum) is the same case (a task with a label already, a label already used in the project).
  for (const task of ['task-1', 'task-2', 'task-4']) {
    await w.invoke('attach-label', { path: { slug: bug.slug }, query: { project_slug: apollo.slug }, body: { task_uuid: task } });
  }
  await w.invoke('attach-label', { path: { slug: feature.slug }, query: { project_slug: apollo.slug }, body: { task_uuid: 'task-3' } });

  const rows: CostRow[] = [];
  const row = async (
    endpoint: string,
    scenario: string,
    minimumIs: string,
    handler: () => Promise<unknown>,
    minimum: () => Promise<unknown>,
  ) => {
    const h = await metered(handler);
    const m = await metered(minimum);
    rows.push({ endpoint, scenario, handler: h.usage, minimum: m.usage, minimumIs });
  };

  // A project is read from one of its copies (store/copies.ts), any one.
  const getProjectItemMin = () => send(new GetCommand({ TableName: T(), Key: keys.projectCopy(ws, apollo.slug, 0), ConsistentRead: true }));
  // A project's stats are its item's and its kept stats' (store/projectStats.ts): both read at once, by slug.
  const keptStatsMin = (slug: string) => send(new GetCommand({ TableName: T(), Key: keys.projectStats(ws, slug), ConsistentRead: true }));
  const getProjectMin = () => Promise.all([getProjectItemMin(), keptStatsMin(apollo.slug)]);
  await row(
    'get-project',
    'one project',
    '2 GetItem (strong, at once: a copy of the item and its kept stats)',
    () => w.invoke('get-project', { path: { slug: apollo.slug } }),
    getProjectMin,
  );
  await row(
    'project-stats',
    'one project',
    '2 GetItem (strong, at once: a copy of the item and its kept stats)',
    () => w.invoke('project-stats', { path: { slug: apollo.slug } }),
    getProjectMin,
  );
  await row(
    'list-projects',
    'first page of 50 (61 projects)',
    '1 Query, Limit 50',
    () => w.invoke('list-projects'),
    () =>
      send(
        new QueryCommand({
          TableName: T(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.workspace(ws), ':p': keys.projectSkPrefix },
          ConsistentRead: true,
          Limit: 50,
        }),
      ),
  );
  for (const page of [2, 3]) {
    await row(
      'list-projects',
      `page=${page}&per_page=20 (page numbers: no offset in DynamoDB)`,
      `1 Query, Limit ${page * 20} (read through the pages before it)`,
      () => w.invoke('list-projects', { query: { page: String(page), per_page: '20' } }),
      () =>
        send(
          new QueryCommand({
            TableName: T(),
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
            ExpressionAttributeValues: { ':pk': keys.workspace(ws), ':p': keys.projectSkPrefix },
            ConsistentRead: true,
            Limit: page * 20,
          }),
        ),
    );
  }
  await row(
    'list-projects',
    'status=in_progress, page of 50',
    '1 Query on GSI1, Limit 50',
    () => w.invoke('list-projects', { query: { status: 'in_progress' } }),
    () =>
      send(
        new QueryCommand({
          TableName: T(),
          IndexName: TABLE.indexes.byStatus.name,
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.projectStatusPartition(ws, 'in_progress') },
          Limit: 50,
        }),
      ),
  );
  await row(
    'list-projects',
    'find by name "workstream 01" (10 hits)',
    '1 Query on GSI2, Limit 50',
    () => w.invoke('list-projects', { query: { name: 'Workstream 01' } }),
    () =>
      send(
        new QueryCommand({
          TableName: T(),
          IndexName: TABLE.indexes.byName.name,
          KeyConditionExpression: 'GSI2PK = :pk AND begins_with(GSI2SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.projectNamePartition(ws), ':p': nameKey('Workstream 01') },
          Limit: 50,
        }),
      ),
  );
  await row(
    'create-project',
    'new name',
    '1 conditional PutItem, then 1 TransactWrite (a check of the item, Put of its 8 copies)',
    () => w.invoke('create-project', { body: { company_slug: ws, name: 'Brand New One' } }),
    () => newProjectMin(storedProjectItem(projectRecord(ws, 'Brand New Two'))),
  );
  await row(
    'update-project',
    'description',
    '1 TransactWrite (the same conditional update on the item and its 8 copies) + GetItem of a copy (the answer) and of its kept stats, at once',
    () => w.invoke('update-project', { path: { slug: apollo.slug }, body: { company_slug: ws, description: 'Mars next' } }),
    () => {
      const change = { ExpressionAttributeValues: { ':d': 'Venus next', ':now': new Date().toISOString() } };
      const update = (Key: Record<string, string>) => ({
        Update: {
          TableName: T(),
          Key,
          UpdateExpression: 'SET description = :d, updated_at = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ...change,
        },
      });
      const copies = Array.from({ length: WORKSPACE_COPIES }, (_, n) => update(keys.projectCopy(ws, apollo.slug, n)));
      return Promise.all([
        send(new TransactWriteCommand({ TransactItems: [update(keys.project(ws, apollo.slug)), ...copies] })).then(getProjectItemMin),
        keptStatsMin(apollo.slug),
      ]);
    },
  );
  await row(
    'duplicate-project',
    'first copy',
    'GetItem + Query GSI2 (taken copy names) + conditional PutItem (copy-name claim: race-free names) + PutItem and TransactWrite as create',
    () => w.invoke('duplicate-project', { path: { slug: apollo.slug } }),
    async () => {
      await getProjectItemMin();
      await send(
        new QueryCommand({
          TableName: T(),
          IndexName: TABLE.indexes.byName.name,
          KeyConditionExpression: 'GSI2PK = :pk AND begins_with(GSI2SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.projectNamePartition(ws), ':p': nameKey('Apollo Mission (copy') },
          Limit: 101,
        }),
      );
      await send(
        new PutCommand({
          TableName: T(),
          Item: { ...keys.copyNameClaim(ws, 'apollo mission (copy 9)'), type: 'copy_name_claim', workspace: ws, claimed_until: 1, ttl: 1 },
          ConditionExpression: 'attribute_not_exists(PK) OR claimed_until < :now',
          ExpressionAttributeValues: { ':now': 2 },
        }),
      );
      await newProjectMin(storedProjectItem(projectRecord(ws, 'Apollo Mission (copy 9)')));
    },
  );
  const doomed = (await w.invoke('create-project', { body: { company_slug: ws, name: 'Doomed A' } })).body.data;
  const doomedMin = projectRecord(ws, 'Doomed B');
  await newProjectMin(storedProjectItem(doomedMin));
  await row(
    'delete-project',
    'no links (any size answers the same: the cascade runs from the stream)',
    '2 GetItem (the project and its kept stats, at once: its event shows them whole) + TransactWrite(Delete project, Put deletion job, Delete kept stats, Put its mark in each of its 17 partitions, Delete its 8 copies)',
    () => w.invoke('delete-project', { path: { slug: doomed.slug } }),
    async () => {
      const [{ Item }] = await Promise.all([
        send(new GetCommand({ TableName: T(), Key: keys.projectCopy(ws, doomedMin.slug, 0), ConsistentRead: true })),
        keptStatsMin(doomedMin.slug),
      ]);
      await send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: T(),
                Key: keys.project(ws, doomedMin.slug),
                ConditionExpression: 'id = :id',
                ExpressionAttributeValues: { ':id': Item.id },
              },
            },
            {
              Put: {
                TableName: T(),
                Item: {
                  ...keys.projectDeletion(Item.id),
                  type: ItemType.projectDeletion,
                  workspace: ws,
                  project_id: Item.id,
                  project_slug: Item.slug,
                  project: Item,
                  actor: BENCH_ACTOR,
                  deleted_at: new Date().toISOString(),
                  round: 0,
                },
              },
            },
            { Delete: { TableName: T(), Key: keys.projectStats(ws, doomedMin.slug) } },
            ...marks(
              keys.projectShards(Item.id).map((pk) => ({ PK: pk, SK: 'GONE' })),
              { project_id: Item.id },
            ),
            ...copyDeletes(ws, doomedMin.slug, keys.projectCopy),
          ],
        }),
      );
    },
  );
  await row(
    'list-labels',
    '12 labels',
    '1 Query',
    () => w.invoke('list-labels'),
    () =>
      send(
        new QueryCommand({
          TableName: T(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.workspace(ws), ':p': keys.labelSkPrefix },
          ConsistentRead: true,
        }),
      ),
  );
  await row(
    'list-labels',
    'labels of one task',
    'GetItem project + Query task + BatchGetItem labels',
    () => w.invoke('list-labels', { query: { project_slug: apollo.slug, task_uuid: 'task-1' } }),
    async () => {
      await getProjectItemMin();
      await send(
        new QueryCommand({
          TableName: T(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.projectShard(project.id, homeShard('task-1')), ':p': keys.taskLinkSkPrefix('task-1') },
          ConsistentRead: true,
        }),
      );
      await send(new BatchGetCommand({ RequestItems: { [T()]: { Keys: [keys.label(ws, bug.slug)], ConsistentRead: true } } }));
    },
  );
  await row(
    'create-label',
    'new title',
    `UpdateItem (id counter) + TransactWrite(2 Put: label, title guard; ${WORKSPACE_COPIES} Put: its copies)`,
    () => w.invoke('create-label', { body: { title: 'Urgent', color: 'FFAA00' } }),
    async () => {
      const { Attributes } = await send(
        new UpdateCommand({
          TableName: T(),
          Key: keys.labelIdCounterOwn(ws),
          UpdateExpression: 'ADD next_id :one',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const id = Attributes.next_id as number;
      const now = new Date().toISOString();
      // The label as its item keeps it, keys aside: the item and each of its copies.
      const later = {
        type: ItemType.label,
        workspace: ws,
        title_norm: 'later',
        id,
        slug: 'later',
        title: 'Later',
        color: 'ABCDEF',
        created_at: now,
        updated_at: now,
      };
      await send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: T(),
                Item: { ...keys.label(ws, 'later'), ...later },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Put: {
                TableName: T(),
                Item: {
                  ...keys.labelTitleGuardOwn(ws, 'later'),
                  type: ItemType.labelTitleGuardOwn,
                  workspace: ws,
                  label_id: id,
                  label_slug: 'later',
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            ...copyPuts(later),
          ],
        }),
      );
    },
  );
  const topic = (i: number) => `topic-${i}`;
  await row(
    'update-label',
    'color only',
    `TransactWrite(the same Update of the label and its ${WORKSPACE_COPIES} copies) + GetItem (the label after, a copy)`,
    () => w.invoke('update-label', { path: { slug: topic(1) }, body: { color: '123456' } }),
    async () => {
      const now = new Date().toISOString();
      const update = (Key: { PK: string; SK: string }) => ({
        Update: {
          TableName: T(),
          Key,
          UpdateExpression: 'SET color = :c, updated_at = :now',
          ExpressionAttributeValues: { ':c': '654321', ':now': now },
        },
      });
      await send(
        new TransactWriteCommand({
          TransactItems: [
            update(keys.label(ws, topic(2))),
            ...Array.from({ length: WORKSPACE_COPIES }, (_, n) => update(keys.labelCopy(ws, topic(2), n))),
          ],
        }),
      );
      await send(new GetCommand({ TableName: T(), Key: keys.labelCopy(ws, topic(2), 0), ConsistentRead: true }));
    },
  );
  await row(
    'update-label',
    'rename',
    `GetItem (old title) + TransactWrite(Update label, Delete old guard, Put new guard; ${WORKSPACE_COPIES} Put: its copies)`,
    () => w.invoke('update-label', { path: { slug: topic(3) }, body: { title: 'Topic three' } }),
    async () => {
      const { Item } = await send(new GetCommand({ TableName: T(), Key: keys.label(ws, topic(4)), ConsistentRead: true }));
      await send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: T(),
                Key: keys.label(ws, topic(4)),
                UpdateExpression: 'SET title = :t, title_norm = :n',
                ConditionExpression: 'id = :id',
                ExpressionAttributeValues: { ':t': 'Topic four', ':n': 'topic four', ':id': Item.id },
              },
            },
            { Delete: { TableName: T(), Key: keys.labelTitleGuardOwn(ws, titleKey(Item.title)) } },
            {
              Put: {
                TableName: T(),
                Item: {
                  ...keys.labelTitleGuardOwn(ws, 'topic four'),
                  type: ItemType.labelTitleGuardOwn,
                  workspace: ws,
                  label_id: Item.id,
                  label_slug: topic(4),
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            ...copyPuts({ ...Item, title: 'Topic four', title_norm: 'topic four' }),
          ],
        }),
      );
    },
  );
  const attachMin = async (task: string, label: { id: number; slug: string }, existingVersion: number | undefined) => {
    await Promise.all([send(new GetCommand({ TableName: T(), Key: keys.label(ws, label.slug), ConsistentRead: true })), getProjectMin()]);
    await send(
      new QueryCommand({
        TableName: T(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
        ExpressionAttributeValues: { ':pk': keys.projectShard(project.id, homeShard(task)), ':p': keys.taskSkPrefix(task) },
        ConsistentRead: true,
      }),
    );
    const now = new Date().toISOString();
    const check = (key: { PK: string; SK: string }, id: unknown) => ({
      ConditionCheck: { TableName: T(), Key: key, ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': id } },
    });
    // The use counter and labels_count are the stream processor's (measured per event below), not the request's.
    await send(
      new TransactWriteCommand({
        TransactItems: [
          check(keys.label(ws, label.slug), label.id),
          check(keys.project(ws, project.slug), project.id),
          { Put: { TableName: T(), Item: taskVersionItem(ws, project.id, task, (existingVersion ?? 0) + 1, homeShard(task)) } },
          {
            Put: {
              TableName: T(),
              Item: taskLinkItem(ws, project, label, task, now, undefined, shardOf(task, LABEL_LINK_SHARDS), homeShard(task)),
            },
          },
          { Put: { TableName: T(), Item: labelLinkItem(ws, project, label, task, now, shardOf(task, LABEL_LINK_SHARDS)) } },
        ],
      }),
    );
    await send(
      new BatchGetCommand({
        RequestItems: { [T()]: { Keys: [keys.label(ws, label.slug), keys.label(ws, bug.slug)], ConsistentRead: true } },
      }),
    );
  };
  await row(
    'attach-label',
    'second label on a task; label used in the project',
    'GetItem label + GetItem project + Query task + TransactWrite(2 checks, 3 Put) + BatchGetItem',
    () => w.invoke('attach-label', { path: { slug: feature.slug }, query: { project_slug: apollo.slug }, body: { task_uuid: 'task-1' } }),
    () => attachMin('task-2', { id: feature.id, slug: feature.slug }, 1),
  );

  await row(
    'detach-label',
    'one of two labels; label stays used in the project',
    'GetItem label + GetItem project + Query task + TransactWrite(2 Delete, Put note naming the actor) + BatchGetItem',
    () => w.invoke('detach-label', { path: { slug: feature.slug }, query: { project_slug: apollo.slug }, body: { task_uuid: 'task-1' } }),
    async () => {
      await Promise.all([
        send(new GetCommand({ TableName: T(), Key: keys.label(ws, feature.slug), ConsistentRead: true })),
        getProjectMin(),
      ]);
      await send(
        new QueryCommand({
          TableName: T(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
          ExpressionAttributeValues: { ':pk': keys.projectShard(project.id, homeShard('task-2')), ':p': keys.taskSkPrefix('task-2') },
          ConsistentRead: true,
        }),
      );
      await send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: T(), Key: keys.taskLink(project.id, 'task-2', feature.id, homeShard('task-2')) } },
            { Delete: { TableName: T(), Key: keys.labelLink(ws, feature.id, project.id, 'task-2', shardOf('task-2', LABEL_LINK_SHARDS)) } },
            { Put: { TableName: T(), Item: detachNoteItem(ws, project, feature, 'task-2', BENCH_ACTOR, undefined, homeShard('task-2')) } },
          ],
        }),
      );
      await send(new BatchGetCommand({ RequestItems: { [T()]: { Keys: [keys.label(ws, bug.slug)], ConsistentRead: true } } }));
    },
  );
  await row(
    'label-tasks',
    'tasks of a label in a project',
    'GetItem label + GetItem project + 1 Query of each shard of the label collection',
    () => w.invoke('label-tasks', { path: { slug: bug.slug }, query: { project_slug: apollo.slug } }),
    async () => {
      await Promise.all([send(new GetCommand({ TableName: T(), Key: keys.label(ws, bug.slug), ConsistentRead: true })), getProjectMin()]);
      // Every shard of the label's collection (store/labelLinkLayout.ts), each for its share of a page and a margin.
      await Promise.all(
        keys.labelCollectionShards(ws, bug.id).map((pk) =>
          send(
            new QueryCommand({
              TableName: T(),
              KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
              ExpressionAttributeValues: { ':pk': pk, ':p': keys.labelLinkProjectPrefix(project.id) },
              ConsistentRead: true,
              Limit: 11,
            }),
          ),
        ),
      );
    },
  );
  await row(
    'delete-label',
    'no links (any size answers the same: the cascade runs from the stream)',
    `GetItem + TransactWrite(Delete label, Delete title guard, Put deletion job, Put its mark in each of its 8 partitions; ${WORKSPACE_COPIES} Delete: its copies)`,
    () => w.invoke('delete-label', { path: { slug: topic(5) } }),
    async () => {
      const { Item } = await send(new GetCommand({ TableName: T(), Key: keys.label(ws, topic(6)), ConsistentRead: true }));
      await send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: T(),
                Key: keys.label(ws, topic(6)),
                ConditionExpression: 'id = :id',
                ExpressionAttributeValues: { ':id': Item.id },
              },
            },
            { Delete: { TableName: T(), Key: keys.labelTitleGuardOwn(ws, titleKey(Item.title)) } },
            {
              Put: {
                TableName: T(),
                Item: {
                  ...keys.labelDeletion(ws, Item.id),
                  type: ItemType.labelDeletion,
                  workspace: ws,
                  label_id: Item.id,
                  label_slug: Item.slug,
                  label: Item,
                  actor: BENCH_ACTOR,
                  deleted_at: new Date().toISOString(),
                  round: 0,
                },
              },
            },
            ...marks(
              keys.labelCollectionShards(ws, Item.id).map((pk) => ({ PK: pk, SK: 'GONE' })),
              { label_id: Item.id },
            ),
            ...copyDeletes(ws, topic(6)),
          ],
        }),
      );
    },
  );
  const { authorizer } = await handlers();
  await row(
    'authorizer',
    'valid token',
    '1 GetItem (eventually consistent)',
    () =>
      authorizer(
        {
          type: 'TOKEN',
          authorizationToken: `Bearer ${w.token}`,
          methodArn: 'arn:aws:execute-api:us-east-1:1:api/stage/GET/projects',
        },
        lambdaContext('authorizer'),
      ),
    () => send(new GetCommand({ TableName: T(), Key: keys.token(String(w.authorizer.principalId)) })),
  );
  log(`cost: ${rows.length} endpoint scenarios measured`);
  return rows;
}

/** What an Idempotency-Key adds to one request: the same request with and without a key, and a replay. */
export interface KeyCostRow {
  scenario: string;
  withKey: Usage;
  without: Usage;
  replay: Usage;
  answerBytes: number;
}

export async function measureIdempotencyCosts(): Promise<KeyCostRow[]> {
  const w = await benchWorkspace('idem');
  const { ws } = w;
  await w.invoke('create-project', { body: { company_slug: ws, name: 'Apollo' } });
  for (const title of ['Bug', 'Feature']) await w.invoke('create-label', { body: { title, color: 'FF0000' } });
  const tasks = Array.from({ length: 100 }, (_, i) => `task-${String(i).padStart(3, '0')}`);
  await w.invoke('attach-label', { path: { slug: 'feature' }, query: { project_slug: 'apollo' }, body: { task_uuids: tasks } });
  const rows: KeyCostRow[] = [];
  let n = 0;
  const row = async (scenario: string, name: string, call: (i: number) => Parameters<typeof w.invoke>[1]) => {
    const without = await metered(() => w.invoke(name, call(n++)));
    const key = `bench-key-${n}`;
    const first = call(n++);
    const keyed = { ...first, headers: { 'Idempotency-Key': key } };
    const withKey = await metered(() => w.invoke(name, keyed));
    const replay = await metered(() => w.invoke(name, keyed));
    const answerBytes = Buffer.byteLength(JSON.stringify(withKey.value.body));
    rows.push({ scenario, withKey: withKey.usage, without: without.usage, replay: replay.usage, answerBytes });
  };
  await row('create-label (a small answer)', 'create-label', (i) => ({ body: { title: `Topic ${i}`, color: 'AABBCC' } }));
  await row('create-project (a small answer)', 'create-project', (i) => ({ body: { company_slug: ws, name: `Project ${i}` } }));
  await row('attach-label to 100 tasks (a large answer, kept gzipped)', 'attach-label', (i) => ({
    path: { slug: 'bug' },
    query: { project_slug: 'apollo' },
    body: { task_uuids: tasks.map((t) => `${t}-${i}`) },
  }));
  return rows;
}
